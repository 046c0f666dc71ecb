package physexpr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/value"
)

// widenDecimal is a numeric column cast to a scale at least its own
// (numeric(7,2) to numeric(12,2) or numeric(38,21): the casts the planner
// puts on a column compared with a wider literal or an aggregate's
// result, TPC-DS Q49's ws_net_profit > 1.00 and Q6's price > 1.2 *
// avg(...)), column at a time: each value times 10^(to.Scale - s) in
// checked 128-bit arithmetic, as RescaleDecimal computes it, with its
// precision check, and the input's validity. The same scale is the
// input's own buffers under the new type, once every value fits the new
// precision. ok is false when a valid value does not fit: the caller's
// per-row cast then raises the row's error. Values under a NULL are
// neither checked nor kept meaningful (the cast of a NULL is NULL).
func widenDecimal(mem memory.Allocator, a *array.Decimal128, s int32, to *arrow.Decimal128Type) (arrow.Array, bool) {
	if to.Scale < s || to.Scale-s > value.MaxDecimalPrecision || to.Precision < 1 || to.Precision > value.MaxDecimalPrecision {
		return nil, false
	}
	n := a.Len()
	d := a.Data()
	var in []decimal128.Num
	if bufs := d.Buffers(); len(bufs) > 1 && bufs[1] != nil {
		in = arrow.Decimal128Traits.CastFromBytes(bufs[1].Bytes())[d.Offset() : d.Offset()+n]
	} else if n > 0 {
		return nil, false
	}
	valid := func(i int) bool { return a.NullN() == 0 || a.IsValid(i) }
	max := value.MaxOfPrecision(to.Precision)
	if to.Scale == s {
		for i, v := range in {
			if !value.Within(v, max) && valid(i) {
				return nil, false
			}
		}
		out := array.NewData(to, n, d.Buffers(), nil, a.NullN(), d.Offset())
		defer out.Release()
		return array.MakeFromData(out), true
	}
	k := value.Pow10x128(to.Scale - s)
	vals := memory.NewResizableBuffer(mem)
	vals.Resize(n * arrow.Decimal128SizeBytes)
	out := arrow.Decimal128Traits.CastFromBytes(vals.Bytes())[:n]
	for i, v := range in {
		r, ok := value.Mul128(v, k)
		if (!ok || !value.Within(r, max)) && valid(i) {
			vals.Release()
			return nil, false
		}
		out[i] = r
	}
	var bitmap *memory.Buffer
	if a.NullN() > 0 {
		bitmap = memory.NewResizableBuffer(mem)
		bitmap.Resize(int(bitutil.BytesForBits(int64(n))))
		bitutil.CopyBitmap(d.Buffers()[0].Bytes(), d.Offset(), n, bitmap.Bytes(), 0)
	}
	data := array.NewData(to, n, []*memory.Buffer{bitmap, vals}, nil, a.NullN(), 0)
	vals.Release()
	if bitmap != nil {
		bitmap.Release()
	}
	defer data.Release()
	return array.MakeFromData(data), true
}

// UnwrapWidening is the comparison l op r without a widening decimal
// cast over one operand when the other is a constant of the widened type
// that the narrower one holds: CAST(x AS numeric(12,2)) > 1.00 with x
// numeric(7,2) is x > 1.00 at numeric(7,2), the same rows (the cast
// changes no value of the same scale and raises on none, as its precision
// keeps every integer digit), without a cast and a 128-bit comparison per
// row: the column against a constant binds to the word kernels
// (cmp_range.go). TPC-DS Q49's three filters spent 286 of its 330 ms on
// the cast and the comparison. Anything else is returned as it is; op is
// a comparison.
func UnwrapWidening(l, r Expr, s *arrow.Schema) (Expr, Expr) {
	if nl, nr, ok := unwrapWidening(l, r, s); ok {
		return nl, nr
	}
	if nr, nl, ok := unwrapWidening(r, l, s); ok {
		return nl, nr
	}
	return l, r
}

// unwrapWidening: c is a widening decimal cast, k a constant its input
// type holds; the input and k at that type.
func unwrapWidening(c, k Expr, s *arrow.Schema) (Expr, Expr, bool) {
	cast, ok := unmemo(c).(Cast)
	if !ok {
		return nil, nil, false
	}
	lit, ok := unmemo(k).(Lit)
	if !ok {
		return nil, nil, false
	}
	v, ok := lit.Value.(decimal128.Num)
	to, tok := cast.To.(*arrow.Decimal128Type)
	if !ok || !tok || lit.Type == nil || !arrow.TypeEqual(lit.Type, to) {
		return nil, nil, false
	}
	ft, err := cast.E.DataType(s)
	if err != nil {
		return nil, nil, false
	}
	from, ok := ft.(*arrow.Decimal128Type)
	if !ok || from.Scale != to.Scale || from.Precision > to.Precision || from.Precision < 1 ||
		!value.Within(v, value.MaxOfPrecision(from.Precision)) {
		return nil, nil, false
	}
	return cast.E, Lit{Value: v, Type: from}, true
}
