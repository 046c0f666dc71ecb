package window_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/exec/window"
)

// winSchema: partition key p, order key o, value x, a constant k (ntile's
// and nth_value's argument) and a float f. (exectest has no decimals:
// the decimal sums are testdata/sql/window.slt's.)
var winSchema = arrow.NewSchema([]arrow.Field{
	{Name: "p", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "o", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

// windowOver builds sort + window over in for partition p and order o.
func windowOver(in exec.Node, order []exec.SortKey, exprs ...window.Expr) (exec.Node, error) {
	part := []int{0}
	s, err := exec.NewSortExec(in, window.Ordering(in.Schema(), part, order))
	if err != nil {
		return nil, err
	}
	return window.NewExec(s, part, order, exprs)
}

// TestWindowRanking: ranks, distributions, lag, ntile and the default
// frame's sum over ties (peers), a NULL order key and a NULL partition,
// at every chunking (the partitions cross batch boundaries).
func TestWindowRanking(t *testing.T) {
	rows := [][]any{
		{int64(1), int64(2), int64(20), int32(2), nil},
		{nil, int64(5), nil, int32(2), nil},
		{int64(1), int64(1), int64(10), int32(2), nil},
		{int64(2), int64(3), int64(5), int32(2), nil},
		{int64(1), nil, int64(40), int32(2), nil},
		{int64(1), int64(2), int64(30), int32(2), nil},
	}
	rowsFrame := window.Frame{Unit: window.FrameRows, Start: window.FrameBound{Kind: window.OffsetPreceding, Offset: int64(1)}, End: window.FrameBound{Kind: window.CurrentRow}}
	exprs := []window.Expr{
		{Func: window.RowNumber, Name: "rn"},
		{Func: window.Rank, Name: "rk"},
		{Func: window.DenseRank, Name: "dr"},
		{Func: window.PercentRank, Name: "pr"},
		{Func: window.CumeDist, Name: "cd"},
		{Func: window.Sum, Args: []int{2}, Frame: window.DefaultFrame, Name: "s"},
		{Func: window.CountStar, Frame: rowsFrame, Name: "c"},
		{Func: window.Lag, Args: []int{2}, Name: "lag"},
		{Func: window.Ntile, Args: []int{3}, Name: "nt"},
	}
	row := func(p, o, x any, rest ...any) []any {
		return append([]any{p, o, x, int32(2), nil}, rest...)
	}
	exectest.Run(t, exectest.Case{
		Inputs: []exectest.Input{{Schema: winSchema, Rows: rows}},
		Build: func(in []exec.Node) (exec.Node, error) {
			return windowOver(in[0], []exec.SortKey{{Column: 1}}, exprs...)
		},
		Want: [][]any{
			row(int64(1), int64(1), int64(10), int64(1), int64(1), int64(1), 0.0, 0.25, int64(10), int64(1), nil, int32(1)),
			row(int64(1), int64(2), int64(20), int64(2), int64(2), int64(2), 1.0/3, 0.75, int64(60), int64(2), int64(10), int32(1)),
			row(int64(1), int64(2), int64(30), int64(3), int64(2), int64(2), 1.0/3, 0.75, int64(60), int64(2), int64(20), int32(2)),
			row(int64(1), nil, int64(40), int64(4), int64(4), int64(3), 1.0, 1.0, int64(100), int64(2), int64(30), int32(2)),
			row(int64(2), int64(3), int64(5), int64(1), int64(1), int64(1), 0.0, 1.0, int64(5), int64(1), nil, int32(1)),
			row(nil, int64(5), nil, int64(1), int64(1), int64(1), 0.0, 1.0, nil, int64(1), nil, int32(1)),
		},
		Ordered: true,
	})
}

// TestWindowPerPartition: the parallel window (a hash repartition on the
// PARTITION BY columns, each stream sorted and evaluated on its own) gives
// the serial window's rows, every window partition whole in one stream.
func TestWindowPerPartition(t *testing.T) {
	var rows [][]any
	var want [][]any
	for p := range int64(7) {
		for o := range int64(5) {
			x := (p*5 + o) % 3
			rows = append(rows, []any{p, o, x, int32(2), nil})
		}
	}
	rows = append(rows, []any{nil, int64(1), int64(4), int32(2), nil}, []any{nil, int64(0), int64(5), int32(2), nil})
	for _, r := range rows {
		p, o := r[0], r[1].(int64)
		var sum int64
		var n int64
		for _, q := range rows {
			if q[0] == p && q[1].(int64) <= o {
				sum += q[2].(int64)
			}
			if q[0] == p {
				n++
			}
		}
		want = append(want, append(append([]any(nil), r...), sum, o+1, n))
	}
	exectest.Run(t, exectest.Case{
		Inputs: []exectest.Input{{Schema: winSchema, Rows: rows}},
		Build: func(in []exec.Node) (exec.Node, error) {
			order := []exec.SortKey{{Column: 1}}
			serial, err := windowOver(in[0], order,
				window.Expr{Func: window.Sum, Args: []int{2}, Frame: window.DefaultFrame, Name: "s"},
				window.Expr{Func: window.RowNumber, Name: "rn"},
				window.Expr{Func: window.CountStar, Frame: window.Frame{Unit: window.FrameRows, End: window.FrameBound{Kind: window.UnboundedFollowing}}, Name: "n"})
			if err != nil {
				return nil, err
			}
			w := serial.(*window.Exec)
			rp, err := exec.NewRepartitionExec(in[0], 3, w.PartitionColumns())
			if err != nil {
				return nil, err
			}
			ps, err := w.Children()[0].(*exec.SortExec).PerPartition(rp)
			if err != nil {
				return nil, err
			}
			pw, err := w.PerPartition(ps)
			if err != nil {
				return nil, err
			}
			if pw.OutputPartitions() != 3 || !strings.HasSuffix(pw.String(), "partitions=3") {
				return nil, errors.New(pw.String())
			}
			return exec.NewCoalescePartitionsExec(pw), nil
		},
		Want: want,
	})
}

// TestWindowFrames: ROWS, GROUPS and RANGE offsets, DESC, value functions
// and min/max/avg over them, decimal and float sums.
func TestWindowFrames(t *testing.T) {
	var rows [][]any
	for i, o := range []int64{1, 2, 2, 4, 7} {
		rows = append(rows, []any{int64(0), o, int64(i + 1), int32(2), float64(i) / 4})
	}
	b := func(k window.BoundKind, off any) window.FrameBound { return window.FrameBound{Kind: k, Offset: off} }
	rows1 := window.Frame{Unit: window.FrameRows, Start: b(window.OffsetPreceding, int64(1)), End: b(window.OffsetFollowing, int64(1))}
	groups := window.Frame{Unit: window.FrameGroups, Start: b(window.CurrentRow, nil), End: b(window.OffsetFollowing, int64(1))}
	rng := window.Frame{Unit: window.FrameRange, Start: b(window.OffsetPreceding, int64(2)), End: b(window.CurrentRow, nil)}
	all := window.Frame{Unit: window.FrameRows, Start: b(window.UnboundedPreceding, nil), End: b(window.UnboundedFollowing, nil)}
	empty := window.Frame{Unit: window.FrameRows, Start: b(window.OffsetFollowing, int64(5)), End: b(window.UnboundedFollowing, nil)}
	exprs := []window.Expr{
		{Func: window.Sum, Args: []int{2}, Frame: rows1, Name: "s_rows"},
		{Func: window.Max, Args: []int{2}, Frame: groups, Name: "max_groups"},
		{Func: window.Min, Args: []int{2}, Frame: rng, Name: "min_range"},
		{Func: window.Count, Args: []int{2}, Frame: rng, Name: "c_range"},
		{Func: window.LastValue, Args: []int{2}, Frame: window.DefaultFrame, Name: "last"},
		{Func: window.NthValue, Args: []int{2, 3}, Frame: all, Name: "nth2"},
		{Func: window.FirstValue, Args: []int{2}, Frame: empty, Name: "first_empty"},
		{Func: window.Sum, Args: []int{4}, Frame: rows1, Name: "sf"},
		{Func: window.Avg, Args: []int{2}, Frame: all, Name: "avg"},
	}
	want := [][]any{
		// o x: rows1 sum, groups max, range[o-2,o] min/count, last (peers), nth 2, first of empty, float, avg
		{int64(1), int64(1), int64(3), int64(3), int64(1), int64(1), int64(1), int64(2), nil, 0.25, 3.0},
		{int64(2), int64(2), int64(6), int64(4), int64(1), int64(3), int64(3), int64(2), nil, 0.75, 3.0},
		{int64(2), int64(3), int64(9), int64(4), int64(1), int64(3), int64(3), int64(2), nil, 1.5, 3.0},
		{int64(4), int64(4), int64(12), int64(5), int64(2), int64(3), int64(4), int64(2), nil, 2.25, 3.0},
		{int64(7), int64(5), int64(9), int64(5), int64(5), int64(1), int64(5), int64(2), nil, 1.75, 3.0},
	}
	for i := range want {
		want[i] = append([]any{int64(0), want[i][0], want[i][1], int32(2), float64(i) / 4}, want[i][2:]...)
	}
	exectest.Run(t, exectest.Case{
		Inputs: []exectest.Input{{Schema: winSchema, Rows: rows}},
		Build: func(in []exec.Node) (exec.Node, error) {
			return windowOver(in[0], []exec.SortKey{{Column: 1}}, exprs...)
		},
		Want:    want,
		Ordered: true,
	})
	// DESC: RANGE 2 PRECEDING is the values up to 2 above.
	descWant := [][]any{}
	for i, r := range []struct{ o, x, s int64 }{{7, 5, 5}, {4, 4, 4}, {2, 2, 9}, {2, 3, 9}, {1, 1, 6}} {
		_ = i
		descWant = append(descWant, []any{int64(0), r.o, r.x, int32(2), nil, r.s})
	}
	var drows [][]any
	for _, r := range rows {
		drows = append(drows, []any{r[0], r[1], r[2], r[3], nil})
	}
	exectest.Run(t, exectest.Case{
		Inputs: []exectest.Input{{Schema: winSchema, Rows: drows}},
		Build: func(in []exec.Node) (exec.Node, error) {
			return windowOver(in[0], []exec.SortKey{{Column: 1, Descending: true, NullsFirst: true}},
				window.Expr{Func: window.Sum, Args: []int{2}, Frame: rng, Name: "s"})
		},
		Want:    descWant,
		Ordered: true,
	})
}

// TestWindowErrors: typed errors for bad frames, arguments and an input
// not ordered for the window, and PostgreSQL's argument errors at run.
func TestWindowErrors(t *testing.T) {
	v, _ := exec.NewValuesExec(winSchema, nil)
	b := func(k window.BoundKind, off any) window.FrameBound { return window.FrameBound{Kind: k, Offset: off} }
	for name, e := range map[string]window.Expr{
		"start unbounded following": {Func: window.Sum, Args: []int{2}, Frame: window.Frame{Start: b(window.UnboundedFollowing, nil), End: b(window.UnboundedFollowing, nil)}},
		"negative offset":           {Func: window.Sum, Args: []int{2}, Frame: window.Frame{Unit: window.FrameRows, Start: b(window.OffsetPreceding, int64(-1)), End: b(window.CurrentRow, nil)}},
		"following then current":    {Func: window.Sum, Args: []int{2}, Frame: window.Frame{Unit: window.FrameRows, Start: b(window.OffsetFollowing, int64(1)), End: b(window.CurrentRow, nil)}},
		"range offset type":         {Func: window.Sum, Args: []int{2}, Frame: window.Frame{Start: b(window.OffsetPreceding, 1.5), End: b(window.CurrentRow, nil)}},
		"ntile of text":             {Func: window.Ntile, Args: []int{4}},
		"rank with an argument":     {Func: window.Rank, Args: []int{2}},
		"argument out of range":     {Func: window.Max, Args: []int{9}, Frame: window.DefaultFrame},
	} {
		if _, err := windowOver(v, []exec.SortKey{{Column: 1}}, e); !errors.Is(err, physexpr.ErrInvalidArgument) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := window.NewExec(v, []int{0}, nil, []window.Expr{{Func: window.RowNumber}}); !errors.Is(err, physexpr.ErrInvalidArgument) {
		t.Errorf("unordered input: %v", err)
	}
	mem := exectest.Mem(t)
	for _, c := range []struct {
		e    window.Expr
		want string
	}{
		{window.Expr{Func: window.Ntile, Args: []int{3}, Name: "n"}, "argument of ntile must be greater than zero"},
		{window.Expr{Func: window.NthValue, Args: []int{2, 3}, Frame: window.DefaultFrame, Name: "n"}, "argument of nth_value must be greater than zero"},
	} {
		bs, err := exectest.Chunk(mem, winSchema, [][]any{{int64(1), int64(1), int64(1), int32(0), nil}}, 10, false)
		if err != nil {
			t.Fatal(err)
		}
		in, _ := exec.NewValuesExec(winSchema, bs)
		for _, b := range bs {
			b.Release()
		}
		w, err := windowOver(in, []exec.SortKey{{Column: 1}}, c.e)
		if err != nil {
			t.Fatal(err)
		}
		s, err := w.Execute(context.Background(), &exec.TaskContext{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Collect(context.Background(), s)
		for _, b := range out {
			b.Release()
		}
		in.Release()
		if !errors.Is(err, physexpr.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.e.Func, err)
		}
	}
}

// TestWindowMemoryLimit: a partition larger than the pool fails with the
// typed memory error; many small partitions under the same limit stream
// through (the memory is one partition's, not the input's).
func TestWindowMemoryLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	run := func(parts int64) (int64, error) {
		var rows [][]any
		for i := range int64(20000) {
			rows = append(rows, []any{i % parts, i, i, int32(1), nil})
		}
		bs, err := exectest.Chunk(mem, winSchema, rows, 512, false)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := exec.NewValuesExec(winSchema, bs)
		defer v.Release()
		for _, b := range bs {
			b.Release()
		}
		// The sort below spills under the pool; the window holds one
		// partition.
		w, err := windowOver(v, []exec.SortKey{{Column: 1}}, window.Expr{Func: window.Sum, Args: []int{2}, Frame: window.DefaultFrame, Name: "s"})
		if err != nil {
			t.Fatal(err)
		}
		return exectest.RunUnder(t, mem, w, 256<<10)
	}
	if _, err := run(1); !errors.Is(err, memlimit.ErrResourceExhausted) || !errors.Is(err, errkind.OutOfRange) {
		t.Fatalf("one partition of 20000 rows under 256 KiB: %v", err)
	}
	if rows, err := run(100); err != nil || rows != 20000 {
		t.Fatalf("100 partitions of 200 rows under 256 KiB: %d rows, %v", rows, err)
	}
}
