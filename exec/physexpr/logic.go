package physexpr

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// boolOut is a boolean output column of n rows, written bit by bit or a
// byte (eight rows) at a time.
type boolOut struct {
	n           int
	vals, valid *memory.Buffer
	v, bits     []byte // value and validity bitmaps, bit 0 is row 0
}

func newBoolOut(mem memory.Allocator, n int) *boolOut {
	nb := int(bitutil.BytesForBits(int64(n)))
	o := &boolOut{n: n, vals: memory.NewResizableBuffer(mem), valid: memory.NewResizableBuffer(mem)}
	o.vals.Resize(nb)
	o.valid.Resize(nb)
	o.v, o.bits = o.vals.Bytes()[:nb], o.valid.Bytes()[:nb]
	clear(o.v)
	for i := range o.bits {
		o.bits[i] = 0xFF
	}
	return o
}

func (o *boolOut) set(i int, b bool) { bitutil.SetBitTo(o.v, i, b) }
func (o *boolOut) setNull(i int) {
	bitutil.ClearBit(o.v, i)
	bitutil.ClearBit(o.bits, i)
}

// array hands the buffers over to a new Boolean array.
func (o *boolOut) array() arrow.Array {
	return boolArray(o.n, o.n-bitutil.CountSetBits(o.bits, 0, o.n), o.valid, o.vals)
}

// boolArray hands a value and a validity buffer of n rows (nulls of them
// NULL) over to a new Boolean array; the validity is dropped when no row
// is NULL.
func boolArray(n, nulls int, valid, vals *memory.Buffer) arrow.Array {
	if nulls == 0 {
		valid.Release()
		valid = nil
	}
	d := array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	if valid != nil {
		valid.Release()
	}
	vals.Release()
	a := array.MakeFromData(d)
	d.Release()
	return a
}

// boolBits returns a boolean datum's values and validity over n rows as
// bitmaps starting at bit 0 (validity nil: no NULLs). Columns at a byte
// boundary are read in place; others, and scalars, are laid out anew.
func boolBits(d compute.Datum, n int) (vals, valid []byte, err error) {
	nb := int(bitutil.BytesForBits(int64(n)))
	switch d := d.(type) {
	case *compute.ScalarDatum:
		s, ok := d.Value.(*scalar.Boolean)
		if !ok {
			return nil, nil, fmt.Errorf("%w: want boolean, got %s", ErrSchema, d.Value.DataType())
		}
		vals = make([]byte, nb)
		if !s.IsValid() {
			return vals, vals, nil // all NULL
		}
		if s.Value {
			for i := range vals {
				vals[i] = 0xFF
			}
		}
		return vals, nil, nil
	case *compute.ArrayDatum:
		a := d.Value
		if a.DataType().ID() != arrow.BOOL {
			return nil, nil, fmt.Errorf("%w: want boolean, got %s", ErrSchema, a.DataType())
		}
		off := a.Offset()
		aligned := func(buf *memory.Buffer) []byte {
			if off%8 == 0 {
				return buf.Bytes()[off/8 : off/8+nb]
			}
			out := make([]byte, nb)
			bitutil.CopyBitmap(buf.Bytes(), off, n, out, 0)
			return out
		}
		vals = aligned(a.Buffers()[1])
		if a.NullN() != 0 && a.Buffers()[0] != nil { // -1: unknown, as in slices
			valid = aligned(a.Buffers()[0])
		}
		return vals, valid, nil
	}
	return nil, nil, fmt.Errorf("%w: datum %s", ErrSchema, d.Kind())
}

// boundLogic is an n-ary Kleene AND or OR. Per row, AND is FALSE if any
// operand is FALSE, else NULL if any is NULL, else TRUE; OR is the dual.
// It is a WordEval (wordeval.go) and folds its operands into two words per
// 64 rows:
//
//	live    = rows no operand has decided yet (AND: none FALSE; OR: none TRUE)
//	unknown = rows with a NULL operand
//	result: not live -> FALSE (AND) / TRUE (OR); else unknown -> NULL; else TRUE (AND) / FALSE (OR)
//
// The operands run in their order, each at the live rows only, and once
// no row is live the rest are not evaluated at all: as in PostgreSQL,
// which evaluates AND/OR left to right per row and stops at the first
// FALSE (AND) or TRUE (OR), an operand's error is raised only for a row
// the operands before it left undecided, and costs nothing for the rows
// they decided. Adjacent ranges on one column of an AND (BETWEEN, a date
// range) are one operand that reads the column once (cmp_range.go);
// merging neighbours changes no row's set of operands evaluated.
//
//	operand ─▶ live rows? ─ none ─▶ done
//	              │ some
//	              ├─ WordEval ─▶ its words at the live rows
//	              └─ other    ─▶ Eval over the live rows (gathered unless all) ─▶ scattered to words
//	           ─▶ live &^= decided, unknown |= NULL ─▶ next operand
type boundLogic struct {
	predicate
	op   Op // OpAnd or OpOr
	args []Bound
}

func bindLogic(op Op, es []Expr, s *arrow.Schema) (Bound, error) {
	bs := make([]Bound, len(es))
	for i, e := range es {
		b, err := Bind(e, s)
		if err != nil {
			return nil, err
		}
		if b.Type().ID() != arrow.BOOL {
			return nil, fmt.Errorf("%w: %s needs boolean operands, %s is %s", ErrSchema, opInfo[op].sym, e, b.Type())
		}
		bs[i] = b
	}
	return newLogic(op, bs), nil
}

// newLogic is the AND or OR of the bound boolean operands bs, in order.
func newLogic(op Op, bs []Bound) boundLogic {
	args := make([]Bound, 0, len(bs))
	for _, b := range bs {
		if g, ok := b.(boundRange); ok && op == OpAnd && !g.neg && len(args) > 0 {
			if p, ok := args[len(args)-1].(boundRange); ok && !p.neg && p.col == g.col {
				args[len(args)-1] = p.intersect(g)
				continue
			}
		}
		args = append(args, b)
	}
	return boundLogic{op: op, args: args}
}

func (e boundLogic) String() string {
	return fmt.Sprintf("%s(%d operands)", opInfo[e.op].sym, len(e.args))
}

func (e boundLogic) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	n := int(b.NumRows())
	out := newCmpOut(mem, n)
	nw := WordsFor(n)
	allScalar, err := e.eval(ctx, mem, b, nil, bufWords(out.vals, nw), bufWords(out.valid, nw))
	if err != nil {
		out.vals.Release()
		out.valid.Release()
		return nil, err
	}
	return result(out.finish(), allScalar)
}

func (e boundLogic) EvalWords(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, live, vals, valid []uint64) error {
	_, err := e.eval(ctx, mem, b, live, vals, valid)
	return err
}

// eval is EvalWords; allScalar reports that every operand evaluated came
// out a scalar (no column was read).
func (e boundLogic) eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, live, vals, valid []uint64) (allScalar bool, err error) {
	n := int(b.NumRows())
	nw := WordsFor(n)
	// vals holds the live rows and valid the unknown ones until the end.
	alive, unknown := vals, valid
	some := uint64(0)
	for w := range nw {
		alive[w] = liveWord(live, w, n)
		unknown[w] = 0
		some |= alive[w]
	}
	scratch := make([]uint64, 2*nw)
	av, am := scratch[:nw], scratch[nw:]
	allScalar = true
	for _, a := range e.args {
		if some == 0 && n > 0 {
			break // every row decided
		}
		if wa, ok := a.(WordEval); ok {
			allScalar = false
			if err := wa.EvalWords(ctx, mem, b, alive, av, am); err != nil {
				return false, err
			}
		} else {
			sc, err := evalGeneric(ctx, mem, a, b, alive, av, am)
			if err != nil {
				return false, err
			}
			allScalar = allScalar && sc
		}
		some = 0
		for w := range nw {
			v := av[w]
			if e.op == OpAnd {
				v = ^v
			}
			unknown[w] |= ^am[w] & alive[w]
			alive[w] &^= v & am[w]
			some |= alive[w]
		}
	}
	for w := range nw {
		asked := liveWord(live, w, n)
		null := alive[w] & unknown[w]
		valid[w] = ^null
		if e.op == OpAnd {
			vals[w] = alive[w] &^ null
		} else {
			vals[w] = asked &^ alive[w]
		}
	}
	return allScalar, nil
}

// Unary operators.
type UnaryOp int

const (
	OpNot UnaryOp = iota
	OpIsNull
	OpIsNotNull
)

type Unary struct {
	Op UnaryOp
	E  Expr
}

func (e Unary) String() string {
	switch e.Op {
	case OpNot:
		var b strings.Builder
		b.WriteString("NOT ")
		writeSub(&b, e.E, precNot)
		return b.String()
	}
	var b strings.Builder
	writeSub(&b, e.E, precIs+1)
	if e.Op == OpIsNull {
		b.WriteString(" IS NULL")
	} else {
		b.WriteString(" IS NOT NULL")
	}
	return b.String()
}
func (e Unary) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e Unary) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}
func (e Unary) Bind(s *arrow.Schema) (Bound, error) {
	if e.Op < OpNot || e.Op > OpIsNotNull {
		return nil, fmt.Errorf("%w: unary operator %d", ErrInvalidArgument, e.Op)
	}
	in, err := Bind(e.E, s)
	if err != nil {
		return nil, err
	}
	if e.Op == OpNot && in.Type().ID() != arrow.BOOL {
		return nil, fmt.Errorf("%w: NOT needs boolean, got %s", ErrSchema, in.Type())
	}
	return boundUnary{exprOf: exprOf[Unary]{e}, op: e.Op, e: in}, nil
}

type boundUnary struct {
	op UnaryOp
	e  Bound
	exprOf[Unary]
	predicate
}

// Eval: NOT flips the values and keeps the validity (NOT NULL is NULL);
// the NULL tests read the validity and are never NULL.
func (e boundUnary) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	d, err := e.e.Eval(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	n, asScalar := rowsFor(int(b.NumRows()), d)
	out := newBoolOut(mem, n)
	if e.op == OpNot {
		vals, valid, err := boolBits(d, n)
		if err != nil {
			out.array().Release()
			return nil, err
		}
		for i := range out.v {
			out.v[i] = ^vals[i]
			if valid != nil {
				out.bits[i] = valid[i]
				out.v[i] &= valid[i]
			}
		}
		return result(out.array(), asScalar)
	}
	want := e.op == OpIsNotNull
	switch d := d.(type) {
	case *compute.ScalarDatum:
		for i := 0; i < n; i++ {
			out.set(i, d.Value.IsValid() == want)
		}
	case *compute.ArrayDatum:
		a := d.MakeArray()
		defer a.Release()
		for i := 0; i < n; i++ {
			out.set(i, a.IsValid(i) == want)
		}
	}
	return result(out.array(), asScalar)
}
