package physexpr

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Evaluation over a selection of rows, for the expressions whose operands
// PostgreSQL evaluates only for some rows (CASE, COALESCE): the operand
// runs over a batch of just those rows, and the pieces are put back in
// row order by one take. Rows are int32 indexes into the batch, ascending.

// allRows is 0..n-1.
func allRows(n int) []int32 {
	r := make([]int32, n)
	for i := range r {
		r[i] = int32(i)
	}
	return r
}

// TakeRows is the batch of b's rows at rows (b itself, retained, when
// rows is every row).
func TakeRows(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, rows []int32) (arrow.RecordBatch, error) {
	if len(rows) == int(b.NumRows()) {
		b.Retain()
		return b, nil
	}
	ib := array.NewInt32Builder(mem)
	ib.AppendValues(rows, nil)
	idx := ib.NewArray()
	ib.Release()
	defer idx.Release()
	cols := make([]arrow.Array, 0, b.NumCols())
	defer func() { ReleaseAll(cols) }()
	kctx := compute.WithAllocator(ctx, mem)
	for _, c := range b.Columns() {
		t, err := compute.TakeArray(kctx, c, idx)
		if err != nil {
			return nil, fmt.Errorf("%w: selecting rows: %w", ErrInvalidArgument, err)
		}
		cols = append(cols, t)
	}
	return array.NewRecordBatch(b.Schema(), cols, int64(len(rows))), nil
}

// evalOn evaluates e over b's rows at rows, as a column of len(rows). A
// literal or parameter reads no row: it is evaluated once, without
// selecting the rows of every column first.
func evalOn(ctx context.Context, mem memory.Allocator, e Bound, b arrow.RecordBatch, rows []int32) (arrow.Array, error) {
	switch e.(type) {
	case boundLit, boundParam:
		d, err := e.Eval(ctx, mem, b)
		if err != nil {
			return nil, err
		}
		defer d.Release()
		return materialize(d, len(rows), mem)
	case boundCol:
		// A column reads only itself: its rows, not every column's.
		if c := e.(boundCol); c.src.Index < int(b.NumCols()) && arrow.TypeEqual(b.Column(c.src.Index).DataType(), c.typ) {
			if a, ok := GatherColumn(mem, b.Column(c.src.Index), rows, nil); ok {
				return a, nil
			}
		}
	}
	sub, err := TakeRows(ctx, mem, b, rows)
	if err != nil {
		return nil, err
	}
	defer sub.Release()
	return EvalArray(ctx, mem, e, sub)
}

// evalOnBool evaluates the boolean e over rows: true where TRUE (FALSE and
// NULL are false).
func evalOnBool(ctx context.Context, mem memory.Allocator, e Bound, b arrow.RecordBatch, rows []int32) ([]bool, error) {
	a, err := evalOn(ctx, mem, e, b, rows)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	ba, ok := a.(*array.Boolean)
	if !ok {
		return nil, fmt.Errorf("%w: condition is %s, not boolean", ErrSchema, a.DataType())
	}
	out := make([]bool, len(rows))
	for i := range out {
		out[i] = ba.IsValid(i) && ba.Value(i)
	}
	return out, nil
}

// assemble evaluates each of vals[k] over its rows picks[k] (the picks
// partition the batch's rows) and puts the values back in row order.
func assemble(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, typ arrow.DataType, vals []Bound, picks [][]int32) (compute.Datum, error) {
	n := int(b.NumRows())
	for k, p := range picks {
		if len(p) == n { // one arm takes every row: its value as it is
			return vals[k].Eval(ctx, mem, b)
		}
	}
	owner, at := make([]int32, n), make([]int32, n)
	var srcs []arrow.Array
	defer func() { ReleaseAll(srcs) }()
	for k, p := range picks {
		if len(p) == 0 {
			continue
		}
		v, err := evalOn(ctx, mem, vals[k], b, p)
		if err != nil {
			return nil, err
		}
		for j, r := range p {
			owner[r], at[r] = int32(len(srcs)), int32(j)
		}
		srcs = append(srcs, v)
	}
	return gather(ctx, mem, typ, srcs, owner, at)
}

// gather builds the column of type typ whose row r is row at[r] of
// srcs[owner[r]] (no sources: no rows).
func gather(ctx context.Context, mem memory.Allocator, typ arrow.DataType, srcs []arrow.Array, owner, at []int32) (compute.Datum, error) {
	if len(srcs) == 0 {
		a := array.MakeArrayOfNull(mem, typ, 0)
		defer a.Release()
		return compute.NewDatum(a), nil
	}
	if len(srcs) == 1 {
		inOrder := true
		for r, j := range at {
			inOrder = inOrder && int(j) == r
		}
		if inOrder && srcs[0].Len() == len(at) {
			return compute.NewDatum(srcs[0]), nil
		}
	}
	all := srcs[0]
	if len(srcs) > 1 {
		var err error
		if all, err = array.Concatenate(srcs, mem); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		defer all.Release()
	}
	base := make([]int32, len(srcs))
	for k := 1; k < len(srcs); k++ {
		base[k] = base[k-1] + int32(srcs[k-1].Len())
	}
	idx := make([]int32, len(at))
	for r := range at {
		idx[r] = base[owner[r]] + at[r]
	}
	if a, ok := GatherColumn(mem, all, idx, nil); ok { // a typed loop, where there is one
		defer a.Release()
		return compute.NewDatum(a), nil
	}
	ib := array.NewInt32Builder(mem)
	ib.AppendValues(idx, nil)
	ia := ib.NewArray()
	ib.Release()
	defer ia.Release()
	out, err := compute.TakeArray(compute.WithAllocator(ctx, mem), all, ia)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	defer out.Release()
	return compute.NewDatum(out), nil
}

// held is a Bound whose value was evaluated already: it lets a node run a
// bound kernel (a comparison) over operands it evaluated itself.
type held struct {
	d compute.Datum // nil at bind time, when only the type is asked for
	ofType
}

func (h held) String() string { return "$held" }
func (h held) Eval(context.Context, memory.Allocator, arrow.RecordBatch) (compute.Datum, error) {
	if h.d == nil {
		return nil, fmt.Errorf("%w: unheld operand", ErrInvalidArgument)
	}
	return compute.NewDatum(h.d), nil
}

// nullsOf reports, per row, whether d is NULL there.
func nullsOf(d compute.Datum) func(i int) bool {
	switch d := d.(type) {
	case *compute.ScalarDatum:
		null := !d.Value.IsValid()
		return func(int) bool { return null }
	case *compute.ArrayDatum:
		a := d.Value
		if a.DataType().ID() == arrow.NULL {
			return func(int) bool { return true }
		}
		if a.NullN() == 0 || a.Buffers()[0] == nil {
			return func(int) bool { return false }
		}
		bits, off := a.Buffers()[0].Bytes(), a.Offset()
		return func(i int) bool { return !bitutil.BitIsSet(bits, off+i) }
	}
	return func(int) bool { return false }
}

func bitSet(bits []byte, i int) bool { return bitutil.BitIsSet(bits, i) }
