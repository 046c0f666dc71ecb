package window

import (
	"fmt"
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/value"
)

// frameBounds is each row's frame as the half-open rows [start, end) of
// its partition (empty when start >= end). Offsets are constants, so both
// ends are non-decreasing in the row for every frame the checks of
// checkFrame allow: the incremental aggregates (window_agg.go) rely on it.
// With an EXCLUDE clause the frame is those bounds less the rows spans
// leaves out (window_exclude.go), which is not monotone: the functions
// then combine the runs of spans.
type frameBounds struct {
	start, end []int
	exclude    FrameExclude
	grp        []int32 // the partition's peer groups, for exclude
	gstart     []int
}

// frame computes (once per partition and frame) every row's frame,
// following PostgreSQL's update_frameheadpos and update_frametailpos
// (nodeWindowAgg.c): ROWS counts rows, GROUPS counts peer groups, RANGE
// compares the single ORDER BY key with the current row's value plus or
// minus the offset (in_range); CURRENT ROW in RANGE and GROUPS mode
// reaches the current row's first or last peer.
func (p *partition) frame(f Frame) (*frameBounds, error) {
	if fb, ok := p.frames[f]; ok {
		return fb, nil
	}
	fb := &frameBounds{start: make([]int, p.n), end: make([]int, p.n), exclude: f.Exclude, grp: p.grp, gstart: p.gstart}
	var rk *rangeKey
	if f.Unit == FrameRange && (isOffset(f.Start) || isOffset(f.End)) {
		var err error
		if rk, err = newRangeKey(p.all.Column(p.order[0].Column), p.order[0]); err != nil {
			return nil, err
		}
	}
	for i := range p.n {
		fb.start[i] = p.bound(f, f.Start, i, true, rk)
		fb.end[i] = p.bound(f, f.End, i, false, rk)
	}
	p.frames[f] = fb
	return fb, nil
}

func isOffset(b FrameBound) bool { return b.Kind == OffsetPreceding || b.Kind == OffsetFollowing }

// bound is row i's frame start (start) or exclusive end.
func (p *partition) bound(f Frame, b FrameBound, i int, start bool, rk *rangeKey) int {
	g := int(p.grp[i])
	switch b.Kind {
	case UnboundedPreceding:
		return 0
	case UnboundedFollowing:
		return p.n
	case CurrentRow:
		switch {
		case f.Unit == FrameRows && start:
			return i
		case f.Unit == FrameRows:
			return i + 1
		case start:
			return p.gstart[g]
		}
		return p.gstart[g+1]
	}
	if f.Unit == FrameRange {
		return rk.bound(p, i, b, start)
	}
	off := b.Offset.(int64)
	if b.Kind == OffsetPreceding {
		off = -off
	}
	if f.Unit == FrameRows {
		j := satAdd(int64(i), off)
		if !start {
			j = satAdd(j, 1)
		}
		return int(min(max(j, 0), int64(p.n)))
	}
	// GROUPS: the first row of peer group g+off (start), or the first row
	// after it (end).
	t := satAdd(int64(g), off)
	if !start {
		t = satAdd(t, 1)
	}
	t = min(max(t, 0), int64(p.groups()))
	return p.gstart[t]
}

func satAdd(a, b int64) int64 {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		if b > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return s
}

// rangeKey is the ORDER BY key of a RANGE frame with an offset: its
// non-NULL rows [lo, hi) (NULLs sort first or last, together), and the
// search for the first row at or past a value in the sort's direction.
type rangeKey struct {
	col    arrow.Array
	desc   bool
	lo, hi int
	// cmpShift compares row j's key with row i's key + sign × off, in
	// the ascending order of values.
	cmpShift func(j, i int, off any, sign int) int
}

func newRangeKey(col arrow.Array, key exec.SortKey) (*rangeKey, error) {
	rk := &rangeKey{col: col, desc: key.Descending}
	n := col.Len()
	nulls := col.NullN()
	if key.NullsFirst {
		rk.lo, rk.hi = nulls, n
	} else {
		rk.lo, rk.hi = 0, n-nulls
	}
	switch c := col.(type) {
	case *array.Int64, *array.Int32, *array.Int16, *array.Date32:
		get := func(j int) int64 { v, _ := intAt(col, j); return v }
		if d, ok := c.(*array.Date32); ok {
			get = func(j int) int64 { return int64(d.Value(j)) }
		}
		rk.cmpShift = func(j, i int, off any, sign int) int {
			return compareDiff(get(j), get(i), int64(sign)*off.(int64)) // offsets are >= 0: no overflow
		}
	case *array.Float64, *array.Float32:
		get := func(j int) float64 {
			if f, ok := c.(*array.Float64); ok {
				return f.Value(j)
			}
			return float64(c.(*array.Float32).Value(j))
		}
		rk.cmpShift = func(j, i int, off any, sign int) int {
			o := off.(float64)
			t := get(i) + float64(sign)*o
			if math.IsNaN(get(i)) {
				t = get(i) // NaN ± anything is NaN: its peers (in_range_float8_float8)
			}
			return value.CompareFloat(get(j), t)
		}
	case *array.Decimal128:
		rk.cmpShift = func(j, i int, off any, sign int) int {
			o := off.(decimal128.Num)
			t := c.Value(i)
			if sign > 0 {
				t = t.Add(o)
			} else {
				t = t.Sub(o)
			}
			return c.Value(j).Cmp(t)
		}
	default:
		return nil, fmt.Errorf("%w: RANGE offset over an ORDER BY key of type %s", physexpr.ErrInvalidArgument, col.DataType())
	}
	return rk, nil
}

// compareDiff compares a with b + d exactly (a - b with d), for int64s.
func compareDiff(a, b, d int64) int {
	diff := a - b
	if (b < 0 && diff < a) || (b > 0 && diff > a) {
		// a - b overflowed: |a - b| > |d|, so its sign decides
		if a > b {
			return 1
		}
		return -1
	}
	switch {
	case diff < d:
		return -1
	case diff > d:
		return 1
	}
	return 0
}

// bound is the RANGE frame start or end for row i. A NULL current row's
// frame offsets reach its NULL peers only; a non-NULL row's never reach
// the NULLs (PostgreSQL's update_frameheadpos: NULLs are peers of each
// other and outside every offset of a value).
func (rk *rangeKey) bound(p *partition, i int, b FrameBound, start bool) int {
	if rk.col.IsNull(i) {
		g := p.grp[i]
		if start {
			return p.gstart[g]
		}
		return p.gstart[g+1]
	}
	// PRECEDING moves against the sort order, FOLLOWING with it; in
	// value terms, for DESC the other way.
	sign := 1
	if b.Kind == OffsetPreceding {
		sign = -1
	}
	if rk.desc {
		sign = -sign
	}
	// The rows in sort order whose values are "before" the target form a
	// prefix of [lo, hi): start is the first row at or past it, end the
	// first row strictly past it.
	past := func(j int) bool {
		c := rk.cmpShift(j, i, b.Offset, sign)
		if rk.desc {
			c = -c
		}
		if start {
			return c >= 0
		}
		return c > 0
	}
	return rk.lo + sort.Search(rk.hi-rk.lo, func(k int) bool { return past(rk.lo + k) })
}
