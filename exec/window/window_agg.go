package window

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/value"
)

// aggregate evaluates an aggregate over every row's frame, incrementally,
// as PostgreSQL's moving-aggregate mode does where the aggregate has an
// inverse transition (pg_aggregate.aggminvtransfn: int8_avg_accum_inv,
// numeric_accum_inv): count, and sum and avg of integers and decimals,
// are differences of exact prefix totals (128 and 192 bits), O(1) a
// row; min and max keep a monotone deque of the frame's candidates, O(1)
// amortized a row. Floats have no inverse (addition is not exact), so
// their sums restart when the frame start moves and add on while only
// the end moves, as advance_windowaggregate does: the answer is
// PostgreSQL's to the bit, O(n × frame) only for a moving start. A frame
// with EXCLUDE is up to three runs of rows (frameBounds.spans), whose
// prefix differences add; min, max and the float sums then take
// window_exclude_agg.go's paths.
func (p *partition) aggregate(fn Func, x arrow.Array, typ arrow.DataType, f *frameBounds) (arrow.Array, error) {
	switch fn {
	case CountStar, Count:
		cnt := p.prefixCounts(x)
		b := array.NewInt64Builder(p.mem)
		defer b.Release()
		b.Reserve(p.n)
		var buf [3]span
		for i := range p.n {
			var n int64
			for _, sp := range f.spans(i, &buf) {
				n += cnt[sp.e] - cnt[sp.s]
			}
			b.UnsafeAppend(n)
		}
		return b.NewArray(), nil
	case Min, Max:
		return p.minMax(fn == Max, x, f)
	case StdDevSamp, StdDevPop, VarSamp, VarPop:
		return p.stats(fn, x, f)
	case BoolAnd, BoolOr:
		return p.boolAgg(fn == BoolOr, x, f)
	case BitAnd, BitOr:
		return p.bitAgg(fn == BitOr, x, typ, f)
	}
	avg := fn == Avg
	switch {
	case arrow.IsInteger(x.DataType().ID()):
		return p.intSum(avg, x, f)
	case x.DataType().ID() == arrow.DECIMAL128:
		return p.decimalSum(avg, x, typ.(*arrow.Decimal128Type), f)
	case x.DataType().ID() == arrow.FLOAT64 || x.DataType().ID() == arrow.FLOAT32:
		return p.floatSum(avg, x, f)
	}
	return nil, fmt.Errorf("%w: %s(%s) over a window", physexpr.ErrInvalidArgument, fn, x.DataType())
}

// prefixCounts is cnt[i] = the rows before i where x is not NULL (every
// row for count(*), x nil).
func (p *partition) prefixCounts(x arrow.Array) []int64 {
	cnt := make([]int64, p.n+1)
	for i := range p.n {
		cnt[i+1] = cnt[i]
		if x == nil || x.IsValid(i) {
			cnt[i+1]++
		}
	}
	return cnt
}

// intSum: prefix totals in 128 bits (hi:lo), which no run of int64
// additions overflows; a frame's total is a difference of two, exact.
// sum is "bigint out of range" when the frame's total does not fit (as
// GROUP BY's intSumAcc); avg is PostgreSQL's numeric quotient of it by the
// count, read as a double (value.AvgQuotient128).
func (p *partition) intSum(avg bool, x arrow.Array, f *frameBounds) (arrow.Array, error) {
	hi := make([]int64, p.n+1)
	lo := make([]uint64, p.n+1)
	for i := range p.n {
		hi[i+1], lo[i+1] = hi[i], lo[i]
		if v, ok := intAt(x, i); ok {
			var c uint64
			lo[i+1], c = bits.Add64(lo[i], uint64(v), 0)
			hi[i+1] += int64(c) + v>>63
		}
	}
	cnt := p.prefixCounts(x)
	var b array.Builder
	if avg {
		b = array.NewFloat64Builder(p.mem)
	} else {
		b = array.NewInt64Builder(p.mem)
	}
	defer b.Release()
	b.Reserve(p.n)
	var buf [3]span
	for i := range p.n {
		// The frame's total: the differences of the prefix totals over
		// its runs, added mod 2^128 (the true total fits).
		var n, h int64
		var l uint64
		for _, sp := range f.spans(i, &buf) {
			n += cnt[sp.e] - cnt[sp.s]
			dl, borrow := bits.Sub64(lo[sp.e], lo[sp.s], 0)
			dh := hi[sp.e] - hi[sp.s] - int64(borrow)
			var c uint64
			l, c = bits.Add64(l, dl, 0)
			h += dh + int64(c)
		}
		if n == 0 {
			b.AppendNull()
			continue
		}
		if avg {
			b.(*array.Float64Builder).UnsafeAppend(value.AvgQuotient128(h, l, n))
			continue
		}
		if h != int64(l)>>63 {
			return nil, fmt.Errorf("%w: bigint out of range (sum)", physexpr.ErrOutOfRange)
		}
		b.(*array.Int64Builder).UnsafeAppend(int64(l))
	}
	return b.NewArray(), nil
}

// decimalSum: prefix totals in 192 bits (value.Int192, as GROUP BY's
// decimalSumAcc), a frame's total their difference; sum is "numeric
// field overflow" past 38 digits, avg PostgreSQL's numeric division of
// the total by the count (physexpr.DivideDecimal).
func (p *partition) decimalSum(avg bool, x arrow.Array, typ *arrow.Decimal128Type, f *frameBounds) (arrow.Array, error) {
	d := x.(*array.Decimal128)
	scale := d.DataType().(*arrow.Decimal128Type).Scale
	pre := make([]value.Int192, p.n+1)
	for i := range p.n {
		pre[i+1] = pre[i]
		if d.IsValid(i) {
			pre[i+1].Add(d.Value(i))
		}
	}
	cnt := p.prefixCounts(x)
	b := array.NewDecimal128Builder(p.mem, typ)
	defer b.Release()
	b.Reserve(p.n)
	limit := value.Pow10(typ.Precision)
	var buf [3]span
	for i := range p.n {
		var n int64
		var tot value.Int192
		for _, sp := range f.spans(i, &buf) {
			n += cnt[sp.e] - cnt[sp.s]
			tot.Merge(pre[sp.e].Minus(pre[sp.s]))
		}
		if n == 0 {
			b.AppendNull()
			continue
		}
		if !avg {
			v, ok := tot.Num()
			if !ok {
				return nil, value.ErrNumericOverflow
			}
			b.UnsafeAppend(v)
			continue
		}
		q, err := physexpr.DivideDecimal(tot.BigInt(), scale, big.NewInt(n), 0, typ.Scale)
		if err != nil {
			return nil, err
		}
		if new(big.Int).Abs(q).Cmp(limit) >= 0 {
			return nil, value.ErrNumericOverflow
		}
		b.UnsafeAppend(decimal128.FromBigInt(q))
	}
	return b.NewArray(), nil
}

// floatSum: one exec.FloatSum, restarted at each row whose frame
// start moved (or whose frame shrank), else carried on over the rows the
// end gained.
func (p *partition) floatSum(avg bool, x arrow.Array, f *frameBounds) (arrow.Array, error) {
	f32 := x.DataType().ID() == arrow.FLOAT32
	val := func(r int) float64 {
		if f32 {
			return float64(x.(*array.Float32).Value(r))
		}
		return x.(*array.Float64).Value(r)
	}
	acc := exec.NewFloatSum(avg, f32)
	var b array.Builder
	if f32 && !avg {
		b = array.NewFloat32Builder(p.mem)
	} else {
		b = array.NewFloat64Builder(p.mem)
	}
	defer b.Release()
	b.Reserve(p.n)
	if f.exclude != ExcludeNoOthers {
		return p.floatSumExcluded(avg, f32, x, val, b, f)
	}
	from, to := 0, 0 // the rows [from, to) in acc
	restart := func(s int) {
		acc.Reset()
		from, to = s, s
	}
	restart(0)
	for i := range p.n {
		s, e := f.start[i], max(f.end[i], f.start[i])
		if s != from || e < to {
			restart(s)
		}
		for ; to < e; to++ {
			if x.IsValid(to) {
				if err := acc.Add(val(to)); err != nil {
					return nil, err
				}
			}
		}
		v, ok := acc.Result()
		switch {
		case !ok:
			b.AppendNull()
		case f32 && !avg:
			b.(*array.Float32Builder).UnsafeAppend(float32(v))
		default:
			b.(*array.Float64Builder).UnsafeAppend(v)
		}
	}
	return b.NewArray(), nil
}

// minMax keeps the candidates of the frame in a deque of row indices
// whose values fall (max) or rise (min) strictly from front to back: a
// row that enters the frame drops every candidate it beats or ties
// (PostgreSQL's float8larger keeps the later of equal values), a row that
// leaves it drops from the front. The front is the answer. Frames whose
// ends are not monotone (none checkFrame allows) fall back to a scan;
// frames with EXCLUDE take a segment tree (minMaxExcluded).
func (p *partition) minMax(isMax bool, x arrow.Array, f *frameBounds) (arrow.Array, error) {
	c, err := exec.Comparator(x)
	if err != nil {
		return nil, err
	}
	better := func(a, b int) bool { // a replaces b as a candidate
		r := c(a, b)
		if isMax {
			return r >= 0
		}
		return r <= 0
	}
	idx := make([]int32, p.n)
	null := make([]bool, p.n)
	if f.exclude != ExcludeNoOthers {
		p.minMaxExcluded(x, better, f, idx, null)
		return p.gather(x, idx, null)
	}
	monotone := true
	for i := 1; i < p.n; i++ {
		if f.start[i] < f.start[i-1] || f.end[i] < f.end[i-1] {
			monotone = false
		}
	}
	if !monotone {
		for i := range p.n {
			best := -1
			for j := f.start[i]; j < f.end[i]; j++ {
				if x.IsValid(j) && (best < 0 || better(j, best)) {
					best = j
				}
			}
			null[i], idx[i] = best < 0, int32(max(best, 0))
		}
		return p.gather(x, idx, null)
	}
	dq := make([]int, 0, 64)
	head, added := 0, 0
	for i := range p.n {
		for ; added < f.end[i]; added++ {
			if x.IsNull(added) {
				continue
			}
			for len(dq) > head && better(added, dq[len(dq)-1]) {
				dq = dq[:len(dq)-1]
			}
			dq = append(dq, added)
		}
		for head < len(dq) && dq[head] < f.start[i] {
			head++
		}
		if head > 1024 && head > len(dq)/2 {
			dq = dq[:copy(dq, dq[head:])]
			head = 0
		}
		if head == len(dq) {
			null[i] = true
			continue
		}
		idx[i] = int32(dq[head])
	}
	return p.gather(x, idx, null)
}
