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

// CASE WHEN cond THEN column ELSE NULL END, the pivot of a conditional
// aggregate (TPC-DS Q43's seven sum(CASE WHEN d_day_name = 'Sunday' THEN
// ss_sales_price ELSE NULL END), Q2's, Q59's), is the column with the
// rows cond does not make TRUE set NULL: a new validity bitmap over the
// column's own value buffers. Its mirror, CASE WHEN cond THEN NULL ELSE
// column END, is the column with the rows cond makes TRUE set NULL: the
// key of a grouping set as the sets without it null it (the expansion
// and the roll-up of GROUPING SETS, ROLLUP and CUBE compute one per key
// per row: TPC-DS Q67's eight over 4.5 million rows).
//
//	cond ─► mask ─┐
//	column ───────┴─► validity(column) AND (mask, or NOT mask), column's values shared
//
// The selection path (boundCase.Eval) took the chosen rows of every
// column of the batch, materialized a column of NULLs for the others and
// took both back into row order: three copies of the rows per CASE. A
// column reference reads its rows and cannot fail, so evaluating it over
// every row, not only the chosen ones, changes nothing that PostgreSQL's
// evaluation order promises.

// maskedColumn reports whether e is such a CASE: one WHEN, one of its
// two values (the WHEN's or the ELSE, written or implied) a column whose
// layout starts with a validity bitmap and the other NULL; col is the
// column's index in e.vals (0: THEN column, 1: ELSE column).
func (e boundCase) maskedColumn() (col int, ok bool) {
	if len(e.conds) != 1 || len(e.vals) != 2 {
		return 0, false
	}
	nullLit := func(v Bound) bool {
		l, ok := v.(boundLit)
		return ok && !l.s.IsValid()
	}
	switch _, c0 := e.vals[0].(boundCol); {
	case c0 && nullLit(e.vals[1]):
		col = 0
	case nullLit(e.vals[0]):
		if _, c1 := e.vals[1].(boundCol); !c1 {
			return 0, false
		}
		col = 1
	default:
		return 0, false
	}
	switch e.typ.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type,
		*arrow.Float32Type, *arrow.Float64Type, *arrow.Decimal128Type, *arrow.Date32Type,
		*arrow.TimestampType, *arrow.BooleanType, *arrow.StringType, *arrow.BinaryType:
		return col, true
	}
	return 0, false
}

// evalMasked evaluates e (maskedColumn, its column e.vals[which]) over b:
// a row keeps its value where the condition's truth is the column's arm
// (TRUE for THEN; FALSE or NULL for ELSE).
func (e boundCase) evalMasked(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, which int) (compute.Datum, error) {
	n := int(b.NumRows())
	mask, err := evalOnBool(ctx, mem, e.conds[0], b, allRows(n))
	if err != nil {
		return nil, err
	}
	d, err := e.vals[which].Eval(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	ad, ok := d.(*compute.ArrayDatum)
	if !ok || int(ad.Len()) != n {
		return nil, fmt.Errorf("%w: CASE value is not a column of the batch", ErrSchema)
	}
	col := ad.MakeArray()
	defer col.Release()
	off := col.Data().Offset()
	valid := memory.NewResizableBuffer(mem)
	defer valid.Release()
	valid.Resize(int(bitutil.BytesForBits(int64(off + n))))
	bits := valid.Bytes()
	clear(bits)
	nulls := 0
	then := which == 0
	for i, cond := range mask {
		if cond == then && col.IsValid(i) {
			bitutil.SetBit(bits, off+i)
		} else {
			nulls++
		}
	}
	bufs := append([]*memory.Buffer{valid}, col.Data().Buffers()[1:]...)
	data := array.NewData(col.DataType(), n, bufs, nil, nulls, off)
	defer data.Release()
	out := array.MakeFromData(data)
	defer out.Release()
	return compute.NewDatum(out), nil
}
