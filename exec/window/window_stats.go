package window

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// stats is stddev_samp, stddev_pop, var_samp or var_pop over every row's
// frame, with GROUP BY's result types and final functions
// (exec/acc_stddev.go).
//
// Of integers and numerics PostgreSQL's moving aggregate is exact
// (int8_accum_inv, numeric_accum_inv remove a row from N, sumX, sumX2):
// here a frame's N, sumX and sumX2 are differences of exact prefix totals,
// O(1) a row (exec.NumericStatsPrefix).
//
// Of floats PostgreSQL 15 has no inverse (float8_accum has none), so
// advance_windowaggregate restarts the state at each frame start that
// moved and adds the frame's rows in order: floatStats does the same
// where that is cheap (the start stays put, or the frame holds at most
// floatRestartRows rows), so the answer is PostgreSQL's to the bit; a
// longer moving frame combines O(log n) nodes of a segment tree with
// float8_combine (PostgreSQL's own merge of two states, Chan's pairwise
// formula), which may differ from PostgreSQL's running sums in the last
// digits; a merged state that is not finite (an infinite or NaN input,
// an overflow) is recomputed row by row, so NaN, Infinity and the
// overflow error are PostgreSQL's.
func (p *partition) stats(fn Func, x arrow.Array, f *frameBounds) (arrow.Array, error) {
	af := aggregateOf[fn]
	switch id := x.DataType().ID(); {
	case id == arrow.FLOAT64 || id == arrow.FLOAT32:
		return p.floatStats(af, x, f)
	case arrow.IsInteger(id) || id == arrow.DECIMAL128:
		pre, err := exec.NewNumericStatsPrefix(af, x)
		if err != nil {
			return nil, err
		}
		b := array.NewDecimal128Builder(p.mem, pre.Type())
		defer b.Release()
		b.Reserve(p.n)
		var buf [3]span
		var runs [3][2]int
		for i := range p.n {
			sps := f.spans(i, &buf)
			for k, sp := range sps {
				runs[k] = [2]int{sp.s, sp.e}
			}
			v, ok, err := pre.Runs(runs[:len(sps)])
			if err != nil {
				return nil, err
			}
			if !ok {
				b.AppendNull()
				continue
			}
			b.UnsafeAppend(v)
		}
		return b.NewArray(), nil
	}
	return nil, fmt.Errorf("%w: %s(%s) over a window", physexpr.ErrInvalidArgument, fn, x.DataType())
}

// floatRestartRows is the longest moving frame floatStats recomputes row
// by row, as PostgreSQL does; a longer one is the segment tree's.
const floatRestartRows = 256

func (p *partition) floatStats(af exec.AggregateFunc, x arrow.Array, f *frameBounds) (arrow.Array, error) {
	val := func(r int) float64 {
		if a, ok := x.(*array.Float32); ok {
			return float64(a.Value(r))
		}
		return x.(*array.Float64).Value(r)
	}
	acc := exec.NewFloatStats(af)
	from, to := 0, 0 // the rows [from, to) in acc
	addTo := func(e int) error {
		for ; to < e; to++ {
			if x.IsValid(to) {
				if err := acc.Add(val(to)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var tree *segTree[exec.FloatStatsState]
	b := array.NewFloat64Builder(p.mem)
	defer b.Release()
	b.Reserve(p.n)
	if f.exclude != ExcludeNoOthers {
		return p.floatStatsExcluded(af, x, val, b, f)
	}
	for i := range p.n {
		s, e := f.start[i], max(f.end[i], f.start[i])
		var st exec.FloatStatsState
		switch {
		case s == from && e >= to:
			if err := addTo(e); err != nil {
				return nil, err
			}
			st = acc.State()
		case e-s <= floatRestartRows:
			acc.Reset()
			from, to = s, s
			if err := addTo(e); err != nil {
				return nil, err
			}
			st = acc.State()
		default:
			if tree == nil {
				tree = p.floatStatsTree(x, val)
			}
			if st = tree.query(s, e); !st.Finite() {
				acc.Reset()
				from, to = s, s
				if err := addTo(e); err != nil {
					return nil, err
				}
				st = acc.State()
			}
		}
		v, ok := exec.FloatStatsResult(af, st)
		if !ok {
			b.AppendNull()
			continue
		}
		b.UnsafeAppend(v)
	}
	return b.NewArray(), nil
}

// floatStatsTree: one leaf a row, float8_accum's state of that row alone
// (N 0 for a NULL), merged by float8_combine.
func (p *partition) floatStatsTree(x arrow.Array, val func(int) float64) *segTree[exec.FloatStatsState] {
	leaves := make([]exec.FloatStatsState, p.n)
	for i := range p.n {
		if x.IsValid(i) {
			leaves[i] = exec.FloatStatsState{N: 1, Sx: val(i)}
		}
	}
	return newSegTree(leaves, exec.FloatStatsState{}, exec.CombineFloatStats)
}
