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
// column's own value buffers.
//
//	cond ─► mask ─┐
//	column ───────┴─► validity(column) AND mask, column's values shared
//
// The selection path (boundCase.Eval) took the chosen rows of every
// column of the batch, materialized a column of NULLs for the others and
// took both back into row order: three copies of the rows per CASE. A
// column reference reads its rows and cannot fail, so evaluating it over
// every row, not only the chosen ones, changes nothing that PostgreSQL's
// evaluation order promises.

// maskedColumn reports whether e is such a CASE: one
// WHEN, its value a column whose layout starts with a validity bitmap,
// and ELSE NULL (written or implied).
func (e boundCase) maskedColumn() bool {
	if len(e.conds) != 1 || len(e.vals) != 2 {
		return false
	}
	if _, ok := e.vals[0].(boundCol); !ok {
		return false
	}
	if l, ok := e.vals[1].(boundLit); !ok || l.s.IsValid() {
		return false
	}
	switch e.typ.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type,
		*arrow.Float32Type, *arrow.Float64Type, *arrow.Decimal128Type, *arrow.Date32Type,
		*arrow.TimestampType, *arrow.BooleanType, *arrow.StringType, *arrow.BinaryType:
		return true
	}
	return false
}

// evalMasked evaluates e (maskedColumn) over b.
func (e boundCase) evalMasked(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	n := int(b.NumRows())
	mask, err := evalOnBool(ctx, mem, e.conds[0], b, allRows(n))
	if err != nil {
		return nil, err
	}
	d, err := e.vals[0].Eval(ctx, mem, b)
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
	for i, keep := range mask {
		if keep && col.IsValid(i) {
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
