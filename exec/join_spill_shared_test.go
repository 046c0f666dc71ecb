package exec_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// parallelJoin is j probing left in parts partitions (hashed on column 2,
// pos, so a key's probe rows are spread over the partitions) against one
// shared build of right.
func parallelJoin(t *testing.T, left, right exec.Node, keys []int, typ exec.JoinType, res physexpr.Expr, parts int) *exec.HashJoinExec {
	t.Helper()
	rp, err := exec.NewRepartitionExec(left, parts, []int{2})
	if err != nil {
		t.Fatal(err)
	}
	j, err := exec.NewHashJoinExecResidual(left, right, keys, keys, typ, res)
	if err != nil {
		t.Fatal(err)
	}
	pj, err := j.PerPartition(rp, right)
	if err != nil {
		t.Fatal(err)
	}
	return pj
}

// parallelRows runs the partitions of n concurrently under limit (0:
// none) and returns all their rows as sorted strings; the spill directory
// must be empty after.
func parallelRows(t *testing.T, mem memory.Allocator, n exec.Node, limit int64) ([]string, error) {
	t.Helper()
	dir := t.TempDir()
	defer assertNoSpillFiles(t, dir)
	ctx := context.Background()
	ss, err := exec.ExecutePartitions(ctx, n, &exec.TaskContext{Mem: mem, BatchSize: 512, Pool: memlimit.NewPool(limit), SpillDir: dir})
	if err != nil {
		return nil, err
	}
	// Each partition on its own goroutine, as a coalesce drives them.
	outs := make([][]arrow.RecordBatch, len(ss))
	errs := make([]error, len(ss))
	var wg sync.WaitGroup
	for i, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.Close()
			outs[i], errs[i] = exec.Collect(ctx, s)
		}()
	}
	wg.Wait()
	err = errors.Join(errs...)
	var rows []string
	for _, bs := range outs {
		for _, b := range bs {
			for r := range int(b.NumRows()) {
				var row []string
				for _, c := range b.Columns() {
					row = append(row, c.ValueStr(r))
				}
				rows = append(rows, strings.Join(row, "|"))
			}
			b.Release()
		}
	}
	slices.Sort(rows)
	return rows, err
}

// TestHashJoinGraceParallel: a parallel join whose shared build is far
// over the limit spills it (it failed with ErrResourceExhausted before)
// and gives, for every join type, with NULL keys, a hot key, two key
// columns and a residual, the rows the unlimited serial join gives (the
// oracle: the serial in-memory join, whose answers TestHashJoinGraceSpill
// and the join tests check). The smallest limit repartitions a spilled
// partition. No file and no byte is left behind.
// graceLimits are the memory limits the parallel grace test runs each
// join under: none, spilling, and one that repartitions a second level.
var graceLimits = []int64{0, 512 << 10, 64 << 10, 16 << 10}

func TestHashJoinGraceParallel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	left := graceInput(t, mem, 21, 12, 500, 3000)
	defer left.Release()
	right := graceInput(t, mem, 22, 20, 500, 3000)
	defer right.Release()
	three := physexpr.Lit{Value: int64(3)}
	residual := physexpr.Binary{Op: physexpr.OpNe,
		L: physexpr.Binary{Op: physexpr.OpMod, L: physexpr.Col{Index: 2, Name: "pos"}, R: three},
		R: physexpr.Binary{Op: physexpr.OpMod, L: physexpr.Col{Index: 5, Name: "pos"}, R: three}}
	types := []exec.JoinType{exec.JoinInner, exec.JoinLeft, exec.JoinRight, exec.JoinFull, exec.JoinSemi, exec.JoinAnti, exec.JoinRightSemi, exec.JoinRightAnti}
	combo := 0 // the (type, keys, residual) combinations so far: -short's rotation
	for _, typ := range types {
		for _, keys := range [][]int{{0}, {0, 1}} {
			for _, res := range []physexpr.Expr{nil, residual} {
				if len(keys) > 1 && res != nil {
					continue
				}
				name := fmt.Sprintf("%s keys %v residual %v", typ, keys, res != nil)
				serial, err := exec.NewHashJoinExecResidual(left, right, keys, keys, typ, res)
				if err != nil {
					t.Fatal(err)
				}
				want, err := graceRows(t, mem, serial, 0)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(want) == 0 {
					t.Fatalf("%s: no rows: a test that cannot fail", name)
				}
				combo++
				for pi, parts := range []int{2, 3} {
					if testing.Short() && pi != combo%2 {
						// -short (make test, under the race
						// detector) runs one partition count per
						// combination and one limit per run, in
						// turn: each limit meets both counts and
						// every type; CI's test-long step (make
						// test-long) runs them all.
						continue
					}
					j := parallelJoin(t, left, right, keys, typ, res, parts)
					for li, limit := range graceLimits {
						if testing.Short() && li != (combo/2)%len(graceLimits) {
							continue
						}
						before := j.Metrics().Snapshot()
						got, err := parallelRows(t, mem, j, limit)
						if err != nil {
							t.Fatalf("%s parts %d limit %d: %v", name, parts, limit, err)
						}
						if !slices.Equal(got, want) {
							t.Fatalf("%s parts %d limit %d: %d rows, want %d", name, parts, limit, len(got), len(want))
						}
						after := j.Metrics().Snapshot()
						spilled := after["spill_count"] > before["spill_count"] && after["spilled_rows"] > before["spilled_rows"] && after["spilled_bytes"] > before["spilled_bytes"]
						if spilled != (limit > 0) {
							t.Fatalf("%s parts %d limit %d: spilled %v: %v", name, parts, limit, spilled, after)
						}
						if limit == 16<<10 && after["spill_depth"] < 2 {
							t.Fatalf("%s parts %d limit %d: depth %d, want a second level", name, parts, limit, after["spill_depth"])
						}
					}
				}
			}
		}
	}
}

// TestHashJoinGraceParallelSingle: a parallel single join spills too and
// still raises on a left row with two matches.
func TestHashJoinGraceParallelSingle(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	left := graceInput(t, mem, 23, 8, 500, 3000)
	defer left.Release()
	right := graceInput(t, mem, 24, 20, 500, 3000)
	defer right.Release()
	serial, err := exec.NewHashJoinExec(left, right, []int{2}, []int{2}, exec.JoinSingle)
	if err != nil {
		t.Fatal(err)
	}
	want, err := graceRows(t, mem, serial, 0)
	if err != nil {
		t.Fatal(err)
	}
	j := parallelJoin(t, left, right, []int{2}, exec.JoinSingle, nil, 2)
	got, err := parallelRows(t, mem, j, 128<<10)
	if err != nil || !slices.Equal(got, want) || spillMetric(j, "spill_count") == 0 {
		t.Fatalf("single join under the limit: %d rows (want %d), %v, metrics %v", len(got), len(want), err, j.Metrics().Snapshot())
	}
	dup := parallelJoin(t, left, right, []int{0}, exec.JoinSingle, nil, 2)
	if _, err := parallelRows(t, mem, dup, 128<<10); !errors.Is(err, exec.ErrSubqueryRows) {
		t.Fatalf("single join with two matches, spilled: %v", err)
	}
}

// TestHashJoinGraceParallelSkew: one key's build rows over the limit
// cannot be split in a parallel join either: ErrJoinKeySkew, typed.
func TestHashJoinGraceParallelSkew(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	left := graceInput(t, mem, 25, 2, 500, 3000)
	defer left.Release()
	right := graceInput(t, mem, 26, 20, 500, 1)
	defer right.Release()
	hot, err := exec.NewFilterExec(right, physexpr.Binary{Op: physexpr.OpEq, L: physexpr.Col{Index: 0, Name: "k"}, R: physexpr.Lit{Value: int64(0)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []exec.Node{hot, right} {
		j := parallelJoin(t, left, r, []int{0}, exec.JoinInner, nil, 2)
		_, err := parallelRows(t, mem, j, 32<<10)
		if !errors.Is(err, exec.ErrJoinKeySkew) || !errors.Is(err, memlimit.ErrResourceExhausted) || !errors.Is(err, errkind.OutOfRange) {
			t.Fatalf("one key over the limit: %v", err)
		}
	}
}

// TestHashJoinGraceParallelCancel: closing the partitions of a spilled
// parallel join mid-stream, or cancelling its context, removes its files
// and releases every byte, whichever state each partition is in.
func TestHashJoinGraceParallelCancel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	left := graceInput(t, mem, 27, 12, 500, 3000)
	defer left.Release()
	right := graceInput(t, mem, 28, 20, 500, 3000)
	defer right.Release()
	j := parallelJoin(t, left, right, []int{0}, exec.JoinFull, nil, 2)
	for _, cancel := range []bool{false, true} {
		dir := t.TempDir()
		ctx, stop := context.WithCancel(context.Background())
		ss, err := exec.ExecutePartitions(ctx, j, &exec.TaskContext{Mem: mem, BatchSize: 512, Pool: memlimit.NewPool(128 << 10), SpillDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		// Each partition reads one batch (the first to need the build
		// partitions and spills it), then is closed, or the context is
		// cancelled first: in whatever state each partition is.
		var wg sync.WaitGroup
		errs := make([]error, len(ss))
		for i, s := range ss {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if b, err := s.Next(ctx); err == nil {
					b.Release()
				}
				if cancel {
					stop()
					if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
						errs[i] = fmt.Errorf("after cancel: %v", err)
					}
				}
				if err := s.Close(); err != nil {
					errs[i] = err
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if spillMetric(j, "spill_count") == 0 {
			t.Fatal("no spill")
		}
		stop()
		assertNoSpillFiles(t, dir)
	}
}
