package exec

import (
	"context"
	"fmt"

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
	nulls := o.n - bitutil.CountSetBits(o.bits, 0, o.n)
	valid := o.valid
	if nulls == 0 {
		valid.Release()
		valid = nil
	}
	d := array.NewData(arrow.FixedWidthTypes.Boolean, o.n, []*memory.Buffer{valid, o.vals}, nil, nulls, 0)
	if valid != nil {
		valid.Release()
	}
	o.vals.Release()
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
// It folds the operands eight rows at a time into two bitmaps:
//
//	AND: decided = rows with a FALSE    OR: decided = rows with a TRUE
//	     unknown = rows with a NULL         unknown = rows with a NULL
//	result: decided -> FALSE (AND) / TRUE (OR); else unknown -> NULL; else the other value
//
// Every operand is evaluated on every batch (no short-circuit), so an
// operand's error is reported the same whatever the other operands hold.
type boundLogic struct {
	op   Op // OpAnd or OpOr
	args []Bound
}

func bindLogic(op Op, es []Expr, s *arrow.Schema) (Bound, error) {
	args := make([]Bound, len(es))
	for i, e := range es {
		b, err := Bind(e, s)
		if err != nil {
			return nil, err
		}
		if b.Type().ID() != arrow.BOOL {
			return nil, fmt.Errorf("%w: %s needs boolean operands, %s is %s", ErrSchema, opInfo[op].sym, e, b.Type())
		}
		args[i] = b
	}
	return boundLogic{op: op, args: args}, nil
}

func (e boundLogic) Type() arrow.DataType { return arrow.FixedWidthTypes.Boolean }
func (e boundLogic) String() string {
	return fmt.Sprintf("%s(%d operands)", opInfo[e.op].sym, len(e.args))
}
func (e boundLogic) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	n := int(b.NumRows())
	nb := int(bitutil.BytesForBits(int64(n)))
	decided, unknown := make([]byte, nb), make([]byte, nb)
	allScalar := true
	for _, a := range e.args {
		d, err := a.Eval(ctx, mem, b)
		if err != nil {
			return nil, err
		}
		allScalar = allScalar && isScalar(d)
		vals, valid, err := boolBits(d, n)
		if err != nil {
			d.Release()
			return nil, err
		}
		for i := range nb {
			m := byte(0xFF)
			if valid != nil {
				m = valid[i]
			}
			v := vals[i]
			if e.op == OpAnd {
				v = ^v
			}
			decided[i] |= v & m
			unknown[i] |= ^m
		}
		d.Release()
	}
	out := newBoolOut(mem, n)
	for i := range nb {
		out.bits[i] = decided[i] | ^unknown[i]
		if e.op == OpAnd {
			out.v[i] = ^decided[i] & ^unknown[i]
		} else {
			out.v[i] = decided[i]
		}
	}
	return result(out.array(), allScalar)
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
		return fmt.Sprintf("NOT %s", e.E)
	case OpIsNull:
		return fmt.Sprintf("%s IS NULL", e.E)
	}
	return fmt.Sprintf("%s IS NOT NULL", e.E)
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
	return boundUnary{op: e.Op, e: in, src: e}, nil
}

type boundUnary struct {
	op  UnaryOp
	e   Bound
	src Unary
}

func (e boundUnary) Type() arrow.DataType { return arrow.FixedWidthTypes.Boolean }
func (e boundUnary) String() string       { return e.src.String() }

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
