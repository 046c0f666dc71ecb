package physexpr

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// When is one WHEN Cond THEN Then arm of a Case.
type When struct {
	Cond, Then Expr
}

// Case is CASE WHEN c1 THEN v1 ... ELSE e END (Else nil: ELSE NULL) with
// PostgreSQL's evaluation order, which is part of its meaning: a row's
// conditions are evaluated in order until one is TRUE (FALSE and NULL go
// on), and only that arm's value (or ELSE's) is evaluated for that row. So
// CASE WHEN x = 0 THEN 0 ELSE 1 / x END never divides by zero: 1 / x is
// evaluated over the rows whose x is not 0 only.
//
// Evaluation is by selection, not per row: each condition runs over the
// rows still undecided, each value over the rows that chose it, and the
// pieces are put back in row order with one take.
//
//	rows ─► cond1 ─TRUE─► then1 over its rows ─┐
//	          └─else─► cond2 ─TRUE─► then2 ... ─┤
//	                     └─else─► ELSE ─────────┴─► take into row order
type Case struct {
	Whens []When
	Else  Expr
}

func (e Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for _, w := range e.Whens {
		fmt.Fprintf(&b, " WHEN %s THEN %s", w.Cond, w.Then)
	}
	if e.Else != nil {
		fmt.Fprintf(&b, " ELSE %s", e.Else)
	}
	b.WriteString(" END")
	return b.String()
}
func (e Case) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e Case) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}

// Bind checks the conditions are boolean and the values of one type.
func (e Case) Bind(s *arrow.Schema) (Bound, error) {
	if len(e.Whens) == 0 {
		return nil, fmt.Errorf("%w: CASE without WHEN", ErrInvalidArgument)
	}
	bc := boundCase{exprOf: exprOf[Case]{e}}
	for _, w := range e.Whens {
		c, err := Bind(w.Cond, s)
		if err != nil {
			return nil, err
		}
		if c.Type().ID() != arrow.BOOL {
			return nil, fmt.Errorf("%w: CASE condition %s is %s, not boolean", ErrSchema, w.Cond, c.Type())
		}
		v, err := Bind(w.Then, s)
		if err != nil {
			return nil, err
		}
		bc.conds, bc.vals = append(bc.conds, c), append(bc.vals, v)
	}
	t := bc.vals[0].Type()
	bc.typ = t
	els := e.Else
	if els == nil {
		els = Lit{Type: t}
	}
	v, err := Bind(els, s)
	if err != nil {
		return nil, err
	}
	bc.vals = append(bc.vals, v)
	for _, v := range bc.vals {
		if !arrow.TypeEqual(v.Type(), t) {
			return nil, fmt.Errorf("%w: CASE values of types %s and %s (add a Cast)", ErrSchema, t, v.Type())
		}
	}
	return bc, nil
}

// boundCase: vals has one more entry than conds, the ELSE value.
type boundCase struct {
	exprOf[Case]
	conds  []Bound
	vals   []Bound
	ofType // kept: a Type that asked vals[0] would walk nested CASEs
}

func (e boundCase) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	if which, ok := e.maskedColumn(); ok {
		return e.evalMasked(ctx, mem, b, which) // casemask.go
	}
	n := int(b.NumRows())
	undecided := allRows(n)
	picks := make([][]int32, len(e.vals)) // rows of each arm, ascending
	for i, c := range e.conds {
		if len(undecided) == 0 {
			break
		}
		mask, err := evalOnBool(ctx, mem, c, b, undecided)
		if err != nil {
			return nil, err
		}
		var rest []int32
		for j, r := range undecided {
			if mask[j] {
				picks[i] = append(picks[i], r)
			} else {
				rest = append(rest, r)
			}
		}
		undecided = rest
	}
	picks[len(e.conds)] = undecided
	return assemble(ctx, mem, b, e.Type(), e.vals, picks)
}

// Coalesce is COALESCE(a, b, ...): per row the first non-NULL argument,
// NULL when all are. As in PostgreSQL, an argument is evaluated only for
// the rows every argument before it left NULL, so COALESCE(x, 1 / 0) does
// not divide for a row whose x is not NULL.
type Coalesce struct {
	Args []Expr
}

func (e Coalesce) String() string {
	parts := make([]string, len(e.Args))
	for i, a := range e.Args {
		parts[i] = a.String()
	}
	return "COALESCE(" + strings.Join(parts, ", ") + ")"
}
func (e Coalesce) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e Coalesce) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}
func (e Coalesce) Bind(s *arrow.Schema) (Bound, error) {
	if len(e.Args) == 0 {
		return nil, fmt.Errorf("%w: COALESCE without arguments", ErrInvalidArgument)
	}
	bc := boundCoalesce{exprOf: exprOf[Coalesce]{e}}
	for _, a := range e.Args {
		v, err := Bind(a, s)
		if err != nil {
			return nil, err
		}
		if len(bc.args) == 0 {
			bc.typ = v.Type()
		} else if !arrow.TypeEqual(v.Type(), bc.typ) {
			return nil, fmt.Errorf("%w: COALESCE arguments of types %s and %s (add a Cast)", ErrSchema, bc.typ, v.Type())
		}
		bc.args = append(bc.args, v)
	}
	return bc, nil
}

type boundCoalesce struct {
	exprOf[Coalesce]
	args   []Bound
	ofType // args[0]'s, kept
}

// Eval evaluates each argument over the rows still NULL; the values of an
// argument's non-NULL rows are taken from it. The rows NULL after the last
// argument take its (NULL) values.
func (e boundCoalesce) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	if len(e.args) == 1 {
		return e.args[0].Eval(ctx, mem, b)
	}
	n := int(b.NumRows())
	pending := allRows(n)
	srcs := make([]arrow.Array, 0, len(e.args)) // srcs[k]: arg k over rows[k]
	defer func() { ReleaseAll(srcs) }()
	owner := make([]int32, n) // which source, and which row of it, each row takes
	at := make([]int32, n)
	for k, a := range e.args {
		if len(pending) == 0 {
			break
		}
		v, err := evalOn(ctx, mem, a, b, pending)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, v)
		last := k == len(e.args)-1
		var rest []int32
		for j, r := range pending {
			if v.IsValid(j) || last {
				owner[r], at[r] = int32(k), int32(j)
			} else {
				rest = append(rest, r)
			}
		}
		pending = rest
	}
	return gather(ctx, mem, e.Type(), srcs, owner, at)
}

// NullIf is NULLIF(a, b): NULL where a = b, else a. Both sides are
// evaluated for every row (PostgreSQL evaluates both, as for =).
type NullIf struct {
	A, B Expr
}

func (e NullIf) String() string                                   { return fmt.Sprintf("NULLIF(%s, %s)", e.A, e.B) }
func (e NullIf) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e NullIf) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}
func (e NullIf) Bind(s *arrow.Schema) (Bound, error) {
	a, err := Bind(e.A, s)
	if err != nil {
		return nil, err
	}
	bb, err := Bind(e.B, s)
	if err != nil {
		return nil, err
	}
	if !arrow.TypeEqual(a.Type(), bb.Type()) {
		return nil, fmt.Errorf("%w: NULLIF of %s and %s (add a Cast)", ErrSchema, a.Type(), bb.Type())
	}
	if _, err := bindCompare(OpEq, held{ofType: ofType{a.Type()}}, held{ofType: ofType{a.Type()}}); err != nil {
		return nil, err
	}
	return boundNullIf{exprOf: exprOf[NullIf]{e}, a: a, b: bb, ofType: ofType{a.Type()}}, nil
}

type boundNullIf struct {
	exprOf[NullIf]
	a, b   Bound
	ofType // a's, kept
}

func (e boundNullIf) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	ds, err := evalBound(ctx, mem, b, e.a, e.b)
	if err != nil {
		return nil, err
	}
	defer releaseDatums(ds)
	eq, err := equalDatums(ctx, mem, b, ds[0], ds[1])
	if err != nil {
		return nil, err
	}
	defer eq.Release()
	n, asScalar := rowsFor(int(b.NumRows()), ds...)
	vals, valid, err := boolBits(eq, n)
	if err != nil {
		return nil, err
	}
	a, err := materialize(ds[0], n, mem)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	// Rows where a = b is TRUE become NULL: take them as out-of-range
	// nulls through a take with a null index.
	idx := array.NewInt32Builder(mem)
	defer idx.Release()
	idx.Reserve(n)
	for i := 0; i < n; i++ {
		if bitSet(vals, i) && (valid == nil || bitSet(valid, i)) {
			idx.AppendNull()
		} else {
			idx.Append(int32(i))
		}
	}
	ia := idx.NewArray()
	defer ia.Release()
	out, err := compute.TakeArray(compute.WithAllocator(ctx, mem), a, ia)
	if err != nil {
		return nil, fmt.Errorf("%w: NULLIF: %w", ErrInvalidArgument, err)
	}
	return result(out, asScalar)
}

// Distinct is A IS [NOT] DISTINCT FROM B: = with NULL as an ordinary
// value, never NULL itself. Not is IS NOT DISTINCT FROM.
type Distinct struct {
	A, B Expr
	Not  bool
}

func (e Distinct) String() string {
	op := "IS DISTINCT FROM"
	if e.Not {
		op = "IS NOT DISTINCT FROM"
	}
	return fmt.Sprintf("%s %s %s", e.A, op, e.B)
}
func (e Distinct) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e Distinct) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}
func (e Distinct) Bind(s *arrow.Schema) (Bound, error) {
	a, err := Bind(e.A, s)
	if err != nil {
		return nil, err
	}
	bb, err := Bind(e.B, s)
	if err != nil {
		return nil, err
	}
	if !arrow.TypeEqual(a.Type(), bb.Type()) {
		return nil, fmt.Errorf("%w: %s: operand types %s and %s differ (add a Cast)", ErrSchema, e, a.Type(), bb.Type())
	}
	if _, err := bindCompare(OpEq, held{ofType: ofType{a.Type()}}, held{ofType: ofType{a.Type()}}); err != nil {
		return nil, err
	}
	return boundDistinct{exprOf: exprOf[Distinct]{e}, a: a, b: bb}, nil
}

type boundDistinct struct {
	exprOf[Distinct]
	predicate
	a, b Bound
}

// Eval: both NULL is not distinct, one NULL is distinct, else the
// comparison's answer (floats compare as = does: NaN equals NaN).
func (e boundDistinct) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	ds, err := evalBound(ctx, mem, b, e.a, e.b)
	if err != nil {
		return nil, err
	}
	defer releaseDatums(ds)
	eq, err := equalDatums(ctx, mem, b, ds[0], ds[1])
	if err != nil {
		return nil, err
	}
	defer eq.Release()
	n, asScalar := rowsFor(int(b.NumRows()), ds...)
	vals, valid, err := boolBits(eq, n)
	if err != nil {
		return nil, err
	}
	na, nb := nullsOf(ds[0]), nullsOf(ds[1])
	out := newBoolOut(mem, n)
	for i := 0; i < n; i++ {
		var same bool
		switch {
		case na(i) || nb(i):
			same = na(i) && nb(i)
		default:
			same = bitSet(vals, i) && (valid == nil || bitSet(valid, i))
		}
		out.set(i, same == e.src.Not)
	}
	return result(out.array(), asScalar)
}

// equalDatums is a = b over two evaluated operands of one type, with the
// comparison kernels of binary.go (floats as PostgreSQL compares them).
func equalDatums(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, x, y compute.Datum) (compute.Datum, error) {
	var t arrow.DataType
	switch x := x.(type) {
	case *compute.ArrayDatum:
		t = x.Type()
	case *compute.ScalarDatum:
		t = x.Type()
	default:
		return nil, fmt.Errorf("%w: datum %s", ErrSchema, x.Kind())
	}
	eq, err := bindCompare(OpEq, held{d: x, ofType: ofType{t}}, held{d: y, ofType: ofType{t}})
	if err != nil {
		return nil, err
	}
	return eq.Eval(ctx, mem, b)
}
