package physexpr

import (
	"context"
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// boundRange is a column of an integer, date, timestamp or decimal type
// tested against constants: lo <= x <= hi (both bounds inclusive), or its
// negation. Every comparison of such a column with a non-NULL literal is
// one (x < k is [MIN, k-1], x <> k is NOT [k, k]), and an AND merges the
// ranges on one column into one (bindLogic), so BETWEEN and a date range
// read the column once, with one compare per row:
//
//	lo <= x <= hi  ⇔  uint(x - lo) <= uint(hi - lo)   (wrapping, in 64 or 128 bits)
//
// Bounds are held as 128-bit integers (decimal128.Num) whatever the
// column's width, so the k±1 of strict bounds and the intersection cannot
// overflow; a range with lo > hi is empty (FALSE on every non-NULL row).
// The result is NULL exactly where the column is.
type boundRange struct {
	predicate
	col    int
	typ    arrow.DataType
	lo, hi decimal128.Num
	neg    bool
	src    string // the comparison(s) it stands for, for String
}

var (
	int128Min = decimal128.New(math.MinInt64, 0)
	int128Max = decimal128.New(math.MaxInt64, math.MaxUint64)
)

// typeBounds is the least and greatest value of a column type with a
// range kernel; ok is false for the other types.
func typeBounds(t arrow.DataType) (lo, hi decimal128.Num, ok bool) {
	signed := func(bits uint) (decimal128.Num, decimal128.Num, bool) {
		return decimal128.FromI64(-1 << (bits - 1)), decimal128.FromI64(1<<(bits-1) - 1), true
	}
	unsigned := func(bits uint) (decimal128.Num, decimal128.Num, bool) {
		return decimal128.FromU64(0), decimal128.FromU64(math.MaxUint64 >> (64 - bits)), true
	}
	switch t.ID() {
	case arrow.INT8:
		return signed(8)
	case arrow.INT16:
		return signed(16)
	case arrow.INT32, arrow.DATE32:
		return signed(32)
	case arrow.INT64, arrow.TIMESTAMP:
		return signed(64)
	case arrow.UINT8:
		return unsigned(8)
	case arrow.UINT16:
		return unsigned(16)
	case arrow.UINT32:
		return unsigned(32)
	case arrow.UINT64:
		return unsigned(64)
	case arrow.DECIMAL128:
		return int128Min, int128Max, true
	}
	return lo, hi, false
}

// constNum is a valid constant of a range type as a 128-bit integer.
func constNum(s scalar.Scalar) (decimal128.Num, bool) {
	switch s := s.(type) {
	case *scalar.Decimal128:
		return s.Value, true
	case *scalar.Int8:
		return decimal128.FromI64(int64(s.Value)), true
	case *scalar.Int16:
		return decimal128.FromI64(int64(s.Value)), true
	case *scalar.Int32:
		return decimal128.FromI64(int64(s.Value)), true
	case *scalar.Date32:
		return decimal128.FromI64(int64(s.Value)), true
	case *scalar.Int64:
		return decimal128.FromI64(s.Value), true
	case *scalar.Timestamp:
		return decimal128.FromI64(int64(s.Value)), true
	case *scalar.Uint8:
		return decimal128.FromU64(uint64(s.Value)), true
	case *scalar.Uint16:
		return decimal128.FromU64(uint64(s.Value)), true
	case *scalar.Uint32:
		return decimal128.FromU64(uint64(s.Value)), true
	case *scalar.Uint64:
		return decimal128.FromU64(s.Value), true
	}
	return decimal128.Num{}, false
}

// asRange is the comparison l op r as a boundRange when one side is a
// column of a range type and the other a non-NULL literal of that type.
func asRange(op Op, l, r Bound) (boundRange, bool) {
	c, cok := l.(boundCol)
	k, kok := r.(boundLit)
	if !cok || !kok {
		if c, cok = r.(boundCol); !cok {
			return boundRange{}, false
		}
		if k, kok = l.(boundLit); !kok {
			return boundRange{}, false
		}
		op = flipOp(op)
	}
	minV, maxV, ok := typeBounds(c.typ)
	if !ok || !k.s.IsValid() || !arrow.TypeEqual(k.s.DataType(), c.typ) {
		return boundRange{}, false
	}
	v, ok := constNum(k.s)
	if !ok {
		return boundRange{}, false
	}
	one := decimal128.FromI64(1)
	g := boundRange{col: c.src.Index, typ: c.typ, lo: minV, hi: maxV, src: fmt.Sprintf("%s %s %s", l, opInfo[op].sym, r)}
	switch op {
	case OpEq:
		g.lo, g.hi = v, v
	case OpNe:
		g.lo, g.hi, g.neg = v, v, true
	case OpLt:
		g.hi = v.Sub(one)
		if v == minV { // x < MIN: no row
			g.lo, g.hi = maxV, minV
		}
	case OpLe:
		g.hi = v
	case OpGt:
		g.lo = v.Add(one)
		if v == maxV {
			g.lo, g.hi = maxV, minV
		}
	case OpGe:
		g.lo = v
	default:
		return boundRange{}, false
	}
	return g, true
}

// intersect is the range of rows in both g and o (same column, neither
// negated).
func (g boundRange) intersect(o boundRange) boundRange {
	if o.lo.Greater(g.lo) {
		g.lo = o.lo
	}
	if o.hi.Less(g.hi) {
		g.hi = o.hi
	}
	g.src += " AND " + o.src
	return g
}

func (g boundRange) String() string { return g.src }

func (g boundRange) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	return wordsArray(ctx, mem, g, b)
}

func (g boundRange) EvalWords(_ context.Context, _ memory.Allocator, b arrow.RecordBatch, live, vals, valid []uint64) error {
	if g.col >= int(b.NumCols()) || !arrow.TypeEqual(b.Column(g.col).DataType(), g.typ) {
		return fmt.Errorf("%w: %s: batch does not match the bound schema", ErrSchema, g.src)
	}
	col := b.Column(g.col).Data()
	validityWords(col, valid)
	n := col.Len()
	if g.hi.Less(g.lo) { // empty: FALSE (NOT: TRUE) on every row
		for w := range vals {
			vals[w] = 0
			if g.neg {
				vals[w] = ^uint64(0)
			}
		}
		return nil
	}
	lo, hi := g.lo.LowBits(), g.hi.LowBits()
	switch g.typ.ID() {
	case arrow.INT8:
		rangeWords(fixedVals[int8](col), n, lo, hi, live, vals)
	case arrow.INT16:
		rangeWords(fixedVals[int16](col), n, lo, hi, live, vals)
	case arrow.INT32, arrow.DATE32:
		rangeWords(fixedVals[int32](col), n, lo, hi, live, vals)
	case arrow.INT64, arrow.TIMESTAMP:
		rangeWords(fixedVals[int64](col), n, lo, hi, live, vals)
	case arrow.UINT8:
		rangeWords(fixedVals[uint8](col), n, lo, hi, live, vals)
	case arrow.UINT16:
		rangeWords(fixedVals[uint16](col), n, lo, hi, live, vals)
	case arrow.UINT32:
		rangeWords(fixedVals[uint32](col), n, lo, hi, live, vals)
	case arrow.UINT64:
		rangeWords(fixedVals[uint64](col), n, lo, hi, live, vals)
	case arrow.DECIMAL128:
		rangeDecWords(fixedVals[decimal128.Num](col), n, g.lo, g.hi, live, vals)
	}
	if g.neg {
		for w := range vals {
			vals[w] = ^vals[w]
		}
	}
	return nil
}

// rangeWords sets the bits of the live rows of v in [lo, hi] (lo <= hi,
// both as uint64(T(bound)): a signed type's values sign-extend, so the
// wrapping difference orders them as an unsigned one does).
func rangeWords[T cmpOrdered](v []T, n int, lo, hi uint64, live, vals []uint64) {
	width := hi - lo
	for w := range WordsFor(n) {
		lw := liveWord(live, w, n)
		if lw == 0 {
			continue
		}
		blk := v[64*w : min(64*w+64, n)]
		var m uint64
		if bits.OnesCount64(lw) < sparseWord {
			for x := lw; x != 0; x &= x - 1 {
				j := bits.TrailingZeros64(x)
				m |= b2u(uint64(blk[j])-lo <= width) << j
			}
		} else {
			j := 0
			for ; j+8 <= len(blk); j += 8 { // eight rows to a byte: constant shifts
				b := blk[j : j+8 : j+8]
				m |= (b2u(uint64(b[0])-lo <= width) | b2u(uint64(b[1])-lo <= width)<<1 |
					b2u(uint64(b[2])-lo <= width)<<2 | b2u(uint64(b[3])-lo <= width)<<3 |
					b2u(uint64(b[4])-lo <= width)<<4 | b2u(uint64(b[5])-lo <= width)<<5 |
					b2u(uint64(b[6])-lo <= width)<<6 | b2u(uint64(b[7])-lo <= width)<<7) << (j & 63)
			}
			for ; j < len(blk); j++ {
				m |= b2u(uint64(blk[j])-lo <= width) << (j & 63)
			}
		}
		vals[w] = m
	}
}

// rangeDecWords is rangeWords for decimal128 values: the difference x - lo
// in 128 bits, compared unsigned with hi - lo.
func rangeDecWords(v []decimal128.Num, n int, lo, hi decimal128.Num, live, vals []uint64) {
	loH, loL := uint64(lo.HighBits()), lo.LowBits()
	wl, b := bits.Sub64(hi.LowBits(), loL, 0)
	wh := uint64(hi.HighBits()) - loH - b
	in := func(x decimal128.Num) uint64 {
		dl, b := bits.Sub64(x.LowBits(), loL, 0)
		dh := uint64(x.HighBits()) - loH - b
		return b2u(dh < wh) | b2u(dh == wh)&b2u(dl <= wl)
	}
	for w := range WordsFor(n) {
		lw := liveWord(live, w, n)
		if lw == 0 {
			continue
		}
		blk := v[64*w : min(64*w+64, n)]
		var m uint64
		if bits.OnesCount64(lw) < sparseWord {
			for x := lw; x != 0; x &= x - 1 {
				j := bits.TrailingZeros64(x)
				m |= in(blk[j]) << j
			}
		} else {
			for j, x := range blk {
				m |= in(x) << j
			}
		}
		vals[w] = m
	}
}
