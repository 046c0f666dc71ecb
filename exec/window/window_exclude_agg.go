package window

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stablerow/stablerow/exec"
)

// The aggregates whose frame-without-EXCLUDE evaluation relies on
// monotone bounds (a deque, a running float sum): with EXCLUDE the frame
// is up to three runs of rows (frameBounds.spans) that are not monotone,
// so they combine the runs instead. PostgreSQL restarts every aggregate
// at every row of a frame with an exclusion (eval_windowaggregates:
// "we have an EXCLUSION clause") and adds the frame's rows in order,
// skipping the excluded ones; the float aggregates do the same for a
// frame of at most floatRestartRows rows, so their answers are
// PostgreSQL's to the bit, and combine O(log n) segment tree nodes for a
// longer one (the last digits may then differ, as floatStats documents).

// minMaxExcluded is min or max over the runs: a segment tree of the best
// row (-1 for none; a later row wins a tie, as the deque keeps it).
func (p *partition) minMaxExcluded(x arrow.Array, better func(a, b int) bool, f *frameBounds, idx []int32, null []bool) {
	leaves := make([]int32, p.n)
	for i := range p.n {
		leaves[i] = -1
		if x.IsValid(i) {
			leaves[i] = int32(i)
		}
	}
	tree := newSegTree(leaves, -1, func(a, b int32) int32 {
		switch {
		case a < 0:
			return b
		case b < 0:
			return a
		case better(int(b), int(a)):
			return b
		}
		return a
	})
	var buf [3]span
	for i := range p.n {
		best := treeOver(tree, f.spans(i, &buf))
		null[i], idx[i] = best < 0, max(best, 0)
	}
}

// floatSumNode is a segment tree node of a float sum: its non-NULL rows
// and their total.
type floatSumNode struct{ n, sx float64 }

// floatSumExcluded is sum or avg of a float column over the runs, built
// into b (a Float32Builder for sum of real, else Float64Builder).
func (p *partition) floatSumExcluded(avg, f32 bool, x arrow.Array, val func(int) float64, b array.Builder, f *frameBounds) (arrow.Array, error) {
	acc := exec.NewFloatSum(avg, f32)
	var tree *segTree[floatSumNode]
	var buf [3]span
	for i := range p.n {
		sps := f.spans(i, &buf)
		v, ok, done := 0.0, false, false
		if rowsIn(sps) > floatRestartRows {
			if tree == nil {
				leaves := make([]floatSumNode, p.n)
				for r := range p.n {
					if x.IsValid(r) {
						leaves[r] = floatSumNode{1, val(r)}
					}
				}
				tree = newSegTree(leaves, floatSumNode{}, func(a, b floatSumNode) floatSumNode {
					return floatSumNode{a.n + b.n, a.sx + b.sx}
				})
			}
			// A total that is not finite is recomputed row by row below,
			// so that NaN, Infinity and the overflow error are
			// PostgreSQL's.
			if st := treeOver(tree, sps); !math.IsInf(st.sx, 0) && !math.IsNaN(st.sx) {
				v, ok, done = st.sx, st.n > 0, true
				if avg {
					v = st.sx / st.n
				}
			}
		}
		if !done {
			acc.Reset()
			for _, sp := range sps {
				for r := sp.s; r < sp.e; r++ {
					if x.IsValid(r) {
						if err := acc.Add(val(r)); err != nil {
							return nil, err
						}
					}
				}
			}
			v, ok = acc.Result()
		}
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

// floatStatsExcluded is a float statistic over the runs: float8_accum row
// by row for a short frame or a merged state that is not finite, else
// float8_combine over the segment tree's nodes.
func (p *partition) floatStatsExcluded(af exec.AggregateFunc, x arrow.Array, val func(int) float64, b *array.Float64Builder, f *frameBounds) (arrow.Array, error) {
	acc := exec.NewFloatStats(af)
	var tree *segTree[exec.FloatStatsState]
	var buf [3]span
	for i := range p.n {
		sps := f.spans(i, &buf)
		var st exec.FloatStatsState
		done := false
		if rowsIn(sps) > floatRestartRows {
			if tree == nil {
				tree = p.floatStatsTree(x, val)
			}
			st = treeOver(tree, sps)
			done = st.Finite()
		}
		if !done {
			acc.Reset()
			for _, sp := range sps {
				for r := sp.s; r < sp.e; r++ {
					if x.IsValid(r) {
						if err := acc.Add(val(r)); err != nil {
							return nil, err
						}
					}
				}
			}
			st = acc.State()
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
