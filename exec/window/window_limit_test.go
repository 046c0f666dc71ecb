package window_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/exec/window"
)

// limitExprs: a ranking, a moving sum over a ROWS frame, lag and a value
// function over a RANGE frame: the window benchmark's shapes.
func limitExprs() []window.Expr {
	b := func(k window.BoundKind, off any) window.FrameBound { return window.FrameBound{Kind: k, Offset: off} }
	rows := window.Frame{Unit: window.FrameRows, Start: b(window.OffsetPreceding, int64(3)), End: b(window.CurrentRow, nil)}
	rng := window.Frame{Unit: window.FrameRange, Start: b(window.OffsetPreceding, int64(50)), End: b(window.CurrentRow, nil)}
	return []window.Expr{
		{Func: window.Rank, Name: "r"},
		{Func: window.Sum, Args: []int{2}, Frame: rows, Name: "s"},
		{Func: window.Lag, Args: []int{2}, Name: "l"},
		{Func: window.FirstValue, Args: []int{2}, Frame: rng, Name: "fv"},
	}
}

// runWindow runs sort + window over rows (in 4096-row batches) under a
// pool of limit bytes (0: none) and returns its rows and the sort's
// metrics.
func runWindow(t *testing.T, mem *memory.CheckedAllocator, rows [][]any, limit int64) ([][]any, map[string]int64, error) {
	t.Helper()
	return runWindowOf(t, mem, rows, limit, limitExprs())
}

// runWindowOf is runWindow of exprs.
func runWindowOf(t *testing.T, mem *memory.CheckedAllocator, rows [][]any, limit int64, exprs []window.Expr) ([][]any, map[string]int64, error) {
	t.Helper()
	bs, err := exectest.Chunk(mem, winSchema, rows, 4096, false)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := exec.NewValuesExec(winSchema, bs)
	defer v.Release()
	for _, b := range bs {
		b.Release()
	}
	w, err := windowOver(v, []exec.SortKey{{Column: 1}}, exprs...)
	if err != nil {
		t.Fatal(err)
	}
	pool := memlimit.NewPool(limit)
	ctx := context.Background()
	s, err := w.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 4096, Pool: pool, SpillDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Collect(ctx, s)
	got, rerr := exectest.Rows(out...)
	for _, b := range out {
		b.Release()
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = rerr
	}
	if pool.Reserved() != 0 {
		t.Fatalf("limit %d: reservation left: %d", limit, pool.Reserved())
	}
	return got, w.Children()[0].(*exec.SortExec).Metrics().Snapshot(), err
}

// TestWindowUnderLimitEqualsUnlimited: under a limit smaller than one
// input batch's sort reservation, the sort below the window splits the
// batches into runs and merges them, and the window's answers are the
// unlimited run's, row for row; every byte goes back.
func TestWindowUnderLimitEqualsUnlimited(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var rows [][]any
	for i := range int64(20000) {
		x := any(i * 7919 % 1000)
		if i%13 == 0 {
			x = nil
		}
		rows = append(rows, []any{i % 500, i * 104729 % 20011 % 300, x, int32(1), nil})
	}
	want, _, err := runWindow(t, mem, rows, 0)
	if err != nil {
		t.Fatal(err)
	}
	// One 4096-row batch reserves about 600 kB in the sort.
	got, m, err := runWindow(t, mem, rows, 96<<10)
	if err != nil {
		t.Fatal(err)
	}
	if m["split_batches"] == 0 || m["spill_count"] == 0 {
		t.Fatalf("the sort did not split and spill: %v", m)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			t.Fatalf("row %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// TestWindowReservesPerExpression: the partition's reservation counts each
// expression's result and scratch and each frame's bounds, so a partition
// whose rows fit but whose four functions' state does not is the typed
// memory error, not memory the pool does not see.
func TestWindowReservesPerExpression(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var rows [][]any
	for i := range int64(4000) {
		rows = append(rows, []any{int64(0), i, i, int32(1), nil})
	}
	// The rows are about 150 kB (the sorted rows the sort below holds
	// while the window reads them, and the window's two copies); a fixed
	// 64 bytes a row of state was 256 kB, the four expressions' and two
	// frames' state is 204 bytes a row, 816 kB.
	_, _, err := runWindow(t, mem, rows, 1<<20)
	if !errors.Is(err, memlimit.ErrResourceExhausted) || !errors.Is(err, errkind.OutOfRange) {
		t.Fatalf("a partition of 4000 rows and four functions under 1 MB: %v", err)
	}
	if _, _, err := runWindow(t, mem, rows, 4<<20); err != nil {
		t.Fatalf("under 4 MB: %v", err)
	}
}
