package window_test

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/exec/window"
	"github.com/stablerow/stablerow/value"
)

// FuzzWindow compares WindowExec with a naive model of PostgreSQL's frames
// (each row's frame is the set of rows that satisfy the bounds' definitions,
// tested one by one; the aggregates are loops over it) for random rows,
// frames, directions, NULL placement and batch sizes.
func FuzzWindow(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 0, 1, 2, 3, 1, 2, 4, 0, 5, 6, 2, 0, 0, 1, 1, 1})
	f.Add([]byte{1, 1, 2, 2, 1, 1, 0, 1, 2, 0, 4, 12, 0, 4, 1, 1, 5, 7, 3, 2, 9})
	f.Add([]byte{2, 1, 1, 2, 1, 2, 0, 0, 0, 0, 1, 1, 0, 2, 2, 0, 3, 3, 0, 3, 3})
	f.Add([]byte{0, 1, 3, 2, 2, 3, 2, 5, 1, 2, 0, 2, 2, 1, 3, 2, 2, 4, 2, 5, 12})
	f.Add([]byte{0, 3, 1, 2, 3, 4, 1, 1, 1, 1, 2, 3, 1, 3, 5, 1, 4, 7})
	// EXCLUDE CURRENT ROW, GROUP and TIES over RANGE, ROWS and GROUPS
	// frames with ties in the key and NULL keys.
	f.Add([]byte{3, 1, 1, 2, 1, 0, 0, 1, 2, 0, 1, 4, 0, 2, 7, 0, 5, 1, 0, 2, 9})
	f.Add([]byte{7, 0, 0, 3, 0, 2, 1, 1, 3, 1, 1, 8, 1, 5, 0, 1, 3, 2, 1, 3, 12})
	f.Add([]byte{11, 1, 2, 2, 1, 5, 0, 2, 1, 0, 2, 6, 0, 2, 11, 0, 4, 3, 0, 4, 5})
	f.Add([]byte{9, 0, 0, 1, 0, 1, 2, 0, 4, 2, 0, 7, 2, 5, 2, 2, 1, 0, 2, 1, 1})
	f.Add([]byte{4, 2, 0, 3, 0, 8, 0, 3, 3, 0, 3, 10, 0, 1, 6, 0, 1, 8, 0, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 6 || len(data) > 6+3*200 {
			return
		}
		starts := []window.BoundKind{window.UnboundedPreceding, window.OffsetPreceding, window.CurrentRow, window.OffsetFollowing}
		ends := []window.BoundKind{window.OffsetPreceding, window.CurrentRow, window.OffsetFollowing, window.UnboundedFollowing}
		// data[0] is the unit (mod 3) and the exclusion (above 2), so
		// the seeds before EXCLUDE keep their frames.
		fr := window.Frame{
			Unit:    []window.FrameUnit{window.FrameRange, window.FrameRows, window.FrameGroups}[data[0]%3],
			Start:   window.FrameBound{Kind: starts[data[1]%4], Offset: int64(data[2] % 4)},
			End:     window.FrameBound{Kind: ends[data[3]%4], Offset: int64(data[4] % 4)},
			Exclude: window.FrameExclude(data[0] / 3 % 4),
		}
		key := exec.SortKey{Column: 1, Descending: data[5]&1 != 0, NullsFirst: data[5]&2 != 0}
		batch := 1 + int(data[5]>>2)%9
		var rows [][]any
		for b := data[6:]; len(b) >= 3; b = b[3:] {
			var p, o, x, fl any
			if b[0]%4 != 3 {
				p = int64(b[0] % 4)
			}
			if b[1]%6 != 5 {
				o = int64(b[1] % 6)
			}
			if b[2]%13 != 12 {
				x = int64(b[2]%13) - 5
				fl = float64(x.(int64)) / 4
			}
			rows = append(rows, []any{p, o, x, int32(2), fl})
		}
		exprs := []window.Expr{
			{Func: window.RowNumber, Name: "rn"},
			{Func: window.Rank, Name: "rk"},
			{Func: window.DenseRank, Name: "dr"},
			{Func: window.Lead, Args: []int{2, 3, 2}, Name: "lead"},
			{Func: window.CountStar, Frame: fr, Name: "cs"},
			{Func: window.Count, Args: []int{2}, Frame: fr, Name: "c"},
			{Func: window.Sum, Args: []int{2}, Frame: fr, Name: "s"},
			{Func: window.Avg, Args: []int{2}, Frame: fr, Name: "a"},
			{Func: window.Min, Args: []int{2}, Frame: fr, Name: "mn"},
			{Func: window.Max, Args: []int{2}, Frame: fr, Name: "mx"},
			{Func: window.FirstValue, Args: []int{2}, Frame: fr, Name: "fv"},
			{Func: window.LastValue, Args: []int{2}, Frame: fr, Name: "lv"},
			{Func: window.NthValue, Args: []int{2, 3}, Frame: fr, Name: "nv"},
			{Func: window.Sum, Args: []int{4}, Frame: fr, Name: "sf"},
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		v := chunkedValues(t, mem, winSchema, rows, batch)
		defer v.Release()
		w, err := windowOver(v, []exec.SortKey{key}, exprs...)
		if err != nil {
			if !errors.Is(err, physexpr.ErrInvalidArgument) {
				t.Fatalf("frame %s: untyped error %v", fr, err)
			}
			return // a frame PostgreSQL refuses
		}
		ctx := context.Background()
		s, err := w.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: batch})
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Collect(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := exectest.Rows(out...)
		for _, b := range out {
			b.Release()
		}
		if err != nil {
			t.Fatal(err)
		}
		want := naiveWindow(rows, key, fr)
		if len(got) != len(want) {
			t.Fatalf("%d rows, want %d", len(got), len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("frame %s key %s row %d:\n got %v\nwant %v", fr, key, i, got[i], want[i])
			}
		}
	})
}

// naiveRow is one row of the model with its partition (the rows of its
// p), peer groups, place i in the partition and frame (indices into part).
type naiveRow struct {
	part  [][]any
	grp   []int
	i     int
	frame []int
}

// naiveFrames is the model of PostgreSQL's frames: rows sorted stably by p
// (ascending, NULLs last) and the key o (column 1), each with its frame,
// found by testing every row of its partition against the bounds'
// definitions.
func naiveFrames(rows [][]any, key exec.SortKey, fr window.Frame) []naiveRow {
	cmpKey := func(a, b any, desc, nullsFirst bool) int {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			if nullsFirst {
				return -1
			}
			return 1
		case b == nil:
			if nullsFirst {
				return 1
			}
			return -1
		}
		c := 0
		if x, y := a.(int64), b.(int64); x < y {
			c = -1
		} else if x > y {
			c = 1
		}
		if desc {
			c = -c
		}
		return c
	}
	rs := append([][]any(nil), rows...)
	sort.SliceStable(rs, func(i, j int) bool {
		if c := cmpKey(rs[i][0], rs[j][0], false, false); c != 0 {
			return c < 0
		}
		return cmpKey(rs[i][1], rs[j][1], key.Descending, key.NullsFirst) < 0
	})
	var out []naiveRow
	for lo := 0; lo < len(rs); {
		hi := lo + 1
		for hi < len(rs) && cmpKey(rs[lo][0], rs[hi][0], false, false) == 0 {
			hi++
		}
		part := rs[lo:hi]
		n := len(part)
		grp := make([]int, n)
		for i := 1; i < n; i++ {
			grp[i] = grp[i-1]
			if cmpKey(part[i-1][1], part[i][1], false, false) != 0 {
				grp[i]++
			}
		}
		// dist is the signed distance from row i's key to row j's in the
		// sort's direction.
		dist := func(i, j int) int64 {
			d := part[j][1].(int64) - part[i][1].(int64)
			if key.Descending {
				d = -d
			}
			return d
		}
		inFrame := func(i, j int) bool {
			ok := func(b window.FrameBound, isStart bool) bool {
				off := b.Offset.(int64)
				if b.Kind == window.OffsetPreceding {
					off = -off
				}
				switch b.Kind {
				case window.UnboundedPreceding, window.UnboundedFollowing:
					return true
				case window.CurrentRow:
					off = 0
					if fr.Unit == window.FrameRows {
						if isStart {
							return j >= i
						}
						return j <= i
					}
				}
				var d int64
				switch fr.Unit {
				case window.FrameRows:
					d = int64(j - i)
				case window.FrameGroups:
					d = int64(grp[j] - grp[i])
				default:
					if b.Kind == window.CurrentRow {
						d = int64(grp[j] - grp[i])
						break
					}
					// PostgreSQL's update_frameheadpos/tailpos: a NULL
					// current row's offsets reach its NULL peers; for a
					// value, NULLs lie beyond every offset, before (NULLS
					// FIRST) or after it.
					ni, nj := part[i][1] == nil, part[j][1] == nil
					switch {
					case ni:
						d, off = int64(grp[j]-grp[i]), 0
					case nj && key.NullsFirst:
						d = -1 << 40
					case nj:
						d = 1 << 40
					default:
						d = dist(i, j)
					}
				}
				if isStart {
					return d >= off
				}
				return d <= off
			}
			return ok(fr.Start, true) && ok(fr.End, false)
		}
		// excluded is EXCLUDE's test of row j for current row i (peers
		// by the key), as row_is_in_frame makes it.
		excluded := func(i, j int) bool {
			switch fr.Exclude {
			case window.ExcludeCurrentRow:
				return j == i
			case window.ExcludeGroup:
				return grp[j] == grp[i]
			case window.ExcludeTies:
				return grp[j] == grp[i] && j != i
			}
			return false
		}
		for i := range n {
			var frame []int
			for j := range n {
				if inFrame(i, j) && !excluded(i, j) {
					frame = append(frame, j)
				}
			}
			out = append(out, naiveRow{part: part, grp: grp, i: i, frame: frame})
		}
		lo = hi
	}
	return out
}

// naiveWindow is the model of FuzzWindow's functions over naiveFrames.
func naiveWindow(rows [][]any, key exec.SortKey, fr window.Frame) [][]any {
	var out [][]any
	for _, nr := range naiveFrames(rows, key, fr) {
		part, grp, i, frame := nr.part, nr.grp, nr.i, nr.frame
		n := len(part)
		rank := 0
		for rank < i && grp[rank] != grp[i] {
			rank++
		}
		var lead any
		if i+2 < n {
			lead = part[i+2][2]
		} else {
			lead = part[i][2]
		}
		var cnt, sum int64
		var mn, mx, fv, lv, nv, sf any
		var fsum float64
		for k, j := range frame {
			x := part[j][2]
			if k == 0 {
				fv = x
			}
			lv = x
			if k == 1 {
				nv = x
			}
			if x == nil {
				continue
			}
			v := x.(int64)
			cnt++
			sum += v
			fsum += part[j][4].(float64)
			if mn == nil || v <= mn.(int64) {
				mn = v
			}
			if mx == nil || v >= mx.(int64) {
				mx = v
			}
		}
		var s, a any
		if cnt > 0 {
			s, a, sf = sum, value.AvgQuotient128(sum>>63, uint64(sum), cnt), fsum // the quotient as PostgreSQL rounds it (value/avg_test.go)
		}
		r := append(append([]any(nil), part[i]...), int64(i+1), int64(rank+1), int64(grp[i]+1), lead,
			int64(len(frame)), cnt, s, a, mn, mx, fv, lv, nv, sf)
		out = append(out, r)
	}
	return out
}
