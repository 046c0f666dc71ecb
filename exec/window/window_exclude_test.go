package window_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/exec/window"
	"github.com/stablerow/stablerow/value"
)

var excludes = []window.FrameExclude{window.ExcludeNoOthers, window.ExcludeCurrentRow, window.ExcludeGroup, window.ExcludeTies}

// excludeExprs are aggExprs and the functions that take other paths with
// an exclusion (the prefix totals of count, sum and avg, the segment
// trees of min and max, the float sums, the value functions) over fr.
func excludeExprs(fr window.Frame) []window.Expr {
	return append(aggExprs(fr),
		window.Expr{Func: window.CountStar, Frame: fr, Name: "cs"},
		window.Expr{Func: window.Count, Args: []int{2}, Frame: fr, Name: "c"},
		window.Expr{Func: window.Sum, Args: []int{2}, Frame: fr, Name: "s"},
		window.Expr{Func: window.Avg, Args: []int{2}, Frame: fr, Name: "a"},
		window.Expr{Func: window.Sum, Args: []int{3}, Frame: fr, Name: "sf"},
		window.Expr{Func: window.Avg, Args: []int{3}, Frame: fr, Name: "af"},
		window.Expr{Func: window.Min, Args: []int{5}, Frame: fr, Name: "mn_s"},
		window.Expr{Func: window.Max, Args: []int{3}, Frame: fr, Name: "mx_f"},
		window.Expr{Func: window.FirstValue, Args: []int{5}, Frame: fr, Name: "fv"},
		window.Expr{Func: window.LastValue, Args: []int{2}, Frame: fr, Name: "lv"},
	)
}

// naiveExclude is the model of excludeExprs: naiveAggs, then loops over
// each frame's rows (in order: the float sums add as PostgreSQL does).
func naiveExclude(t *testing.T, mem memory.Allocator, rows [][]any, key exec.SortKey, fr window.Frame) [][]any {
	out := naiveAggs(t, mem, rows, key, fr)
	for k, nr := range naiveFrames(rows, key, fr) {
		var cnt, sum int64
		var fn int
		var fsum float64
		var s, a, sf, af, mn, mx, fv, lv any
		for p, j := range nr.frame {
			r := nr.part[j]
			if p == 0 {
				fv = r[5]
			}
			lv = r[2]
			if x, ok := r[2].(int64); ok {
				cnt++
				sum += x
			}
			if f, ok := r[3].(float64); ok {
				fn++
				if fn == 1 {
					fsum = f
				} else {
					fsum += f
				}
				if mx == nil || f >= mx.(float64) {
					mx = f
				}
			}
			if v, ok := r[5].(string); ok && (mn == nil || v <= mn.(string)) {
				mn = v
			}
		}
		if cnt > 0 {
			s, a = sum, value.AvgQuotient128(sum>>63, uint64(sum), cnt) // the quotient as PostgreSQL rounds it (value/avg_test.go checks it against PostgreSQL)
		}
		if fn > 0 {
			sf, af = fsum, fsum/float64(fn)
		}
		out[k] = append(out[k], int64(len(nr.frame)), cnt, s, a, sf, af, mn, mx, fv, lv)
	}
	return out
}

// TestWindowExcludeAgainstModel: every exclusion over random ROWS, RANGE
// and GROUPS frames (ties in the key, NULL keys, frames that exclusion
// empties or that do not hold the current row) and batchings equals a
// model that tests every row of the partition against the bounds and
// the exclusion (row_is_in_frame), for every frame-using function.
func TestWindowExcludeAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 8))
	for iter := range 240 {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rows := randomAggRows(rng, 1+rng.IntN(40))
		fr := randomFrame(rng)
		fr.Exclude = excludes[iter%4]
		key := exec.SortKey{Column: 1, Descending: rng.IntN(2) == 0, NullsFirst: rng.IntN(2) == 0}
		got, err := runAggWindow(t, mem, rows, key, 1+rng.IntN(9), excludeExprs(fr))
		if err != nil {
			if !errors.Is(err, physexpr.ErrInvalidArgument) {
				t.Fatalf("frame %s: untyped error %v", fr, err)
			}
			continue // a frame PostgreSQL refuses
		}
		want := naiveExclude(t, mem, rows, key, fr)
		if len(got) != len(want) {
			t.Fatalf("iteration %d: %d rows, want %d", iter, len(got), len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("iteration %d frame %s key %s row %d:\n got %v\nwant %v", iter, fr, key, i, got[i], want[i])
			}
		}
		mem.AssertSize(t, 0)
	}
}

// TestWindowExcludeLongFrames: float sums and statistics over a frame of
// more than floatRestartRows rows with an exclusion combine segment tree
// nodes over the frame's runs: within a few ulps of the sum in order, and
// exactly it where an infinity makes the tree's total unusable.
func TestWindowExcludeLongFrames(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(7, 29))
	const n = 900
	rows := make([][]any, n)
	for i := range rows {
		var f any = rng.NormFloat64()*1e3 + 1e6
		switch {
		case i%97 == 5:
			f = nil
		case i == 810:
			f = math.Inf(-1)
		}
		rows[i] = []any{int64(0), int64(i / 3), int64(i), f, true, "s", ",", int32(1)}
	}
	key := exec.SortKey{Column: 1}
	for _, ex := range excludes[1:] {
		fr := window.Frame{Unit: window.FrameRows, Start: window.FrameBound{Kind: window.OffsetPreceding, Offset: int64(400)},
			End: window.FrameBound{Kind: window.OffsetFollowing, Offset: int64(3)}, Exclude: ex}
		exprs := []window.Expr{
			{Func: window.Sum, Args: []int{3}, Frame: fr, Name: "sf"},
			{Func: window.Avg, Args: []int{3}, Frame: fr, Name: "af"},
			{Func: window.VarSamp, Args: []int{3}, Frame: fr, Name: "vs_f"},
		}
		got, err := runAggWindow(t, mem, rows, key, 128, exprs)
		if err != nil {
			t.Fatal(err)
		}
		long := 0
		for _, nr := range naiveFrames(rows, key, fr) {
			var vals []any
			var sum float64
			for _, j := range nr.frame {
				if f, ok := nr.part[j][3].(float64); ok {
					vals = append(vals, f)
					sum += f
				}
			}
			if len(nr.frame) > 256 {
				long++
			}
			var want [3]any
			if len(vals) > 0 {
				want[0], want[1] = sum, sum/float64(len(vals))
			}
			want[2] = groupedOver(t, mem, exec.AggVarSamp, arrow.PrimitiveTypes.Float64, vals)
			for k := range want {
				g := got[nr.i][len(aggSchema.Fields())+k]
				wf, ok := want[k].(float64)
				if !ok || math.IsInf(wf, 0) || math.IsNaN(wf) {
					if fmt.Sprint(g) != fmt.Sprint(want[k]) {
						t.Fatalf("%s row %d %s: got %v, want %v", fr, nr.i, exprs[k].Name, g, want[k])
					}
					continue
				}
				if gf := g.(float64); math.Abs(gf-wf) > 1e-12*math.Abs(wf) {
					t.Fatalf("%s row %d %s: got %v, want %v", fr, nr.i, exprs[k].Name, gf, wf)
				}
			}
		}
		if long == 0 {
			t.Fatalf("%s: no frame longer than the rows recomputed in order", fr)
		}
	}
}

// TestWindowExcludeUnderLimit: windows with EXCLUDE keep the operator's
// memory behaviour: under a limit the sort below spills and the answers
// are the unlimited run's; a partition whose state exceeds the limit is
// the typed memory error.
func TestWindowExcludeUnderLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := func(k window.BoundKind, off any) window.FrameBound { return window.FrameBound{Kind: k, Offset: off} }
	groups := window.Frame{Unit: window.FrameGroups, Start: b(window.OffsetPreceding, int64(1)), End: b(window.OffsetFollowing, int64(1)), Exclude: window.ExcludeTies}
	rows := window.Frame{Unit: window.FrameRows, Start: b(window.OffsetPreceding, int64(3)), End: b(window.OffsetFollowing, int64(2)), Exclude: window.ExcludeCurrentRow}
	exprs := []window.Expr{
		{Func: window.Sum, Args: []int{2}, Frame: groups, Name: "s"},
		{Func: window.Min, Args: []int{2}, Frame: rows, Name: "mn"},
		{Func: window.Sum, Args: []int{4}, Frame: rows, Name: "sf"},
		{Func: window.LastValue, Args: []int{2}, Frame: groups, Name: "lv"},
	}
	var in [][]any
	for i := range int64(20000) {
		x := any(i * 7919 % 1000)
		if i%13 == 0 {
			x = nil
		}
		in = append(in, []any{i % 500, i * 104729 % 20011 % 300, x, int32(1), float64(i%37) / 4})
	}
	want, _, err := runWindowOf(t, mem, in, 0, exprs)
	if err != nil {
		t.Fatal(err)
	}
	got, m, err := runWindowOf(t, mem, in, 96<<10, exprs)
	if err != nil {
		t.Fatal(err)
	}
	if m["spill_count"] == 0 {
		t.Fatalf("the sort did not spill: %v", m)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatal("answers under the limit differ from the unlimited run's")
	}
	var one [][]any
	for i := range int64(4000) {
		one = append(one, []any{int64(0), i, i, int32(1), float64(i)})
	}
	if _, _, err := runWindowOf(t, mem, one, 1<<20, exprs); !errors.Is(err, memlimit.ErrResourceExhausted) || !errors.Is(err, errkind.OutOfRange) {
		t.Fatalf("a partition of 4000 rows and four functions under 1 MB: %v", err)
	}
}
