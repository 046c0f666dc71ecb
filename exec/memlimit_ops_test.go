package exec_test

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
)

// TestHashJoinBuildOverLimit: over the limit a hash join's build side
// spills (join_spill.go) and the answer is complete; one that may not
// spill (the planner keeps its outer order) fails with the typed error,
// not a panic or a partial answer, and is complete under no limit.
func TestHashJoinBuildOverLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, bs := spillInput(t, mem, 5, 20, 500)
	v, _ := exec.NewValuesExec(spillSchema, bs)
	defer v.Release()
	for _, b := range bs {
		b.Release()
	}
	for _, typ := range []exec.JoinType{exec.JoinInner, exec.JoinFull, exec.JoinSemi} {
		j, err := exec.NewHashJoinExec(v, v, []int{2}, []int{2}, typ)
		if err != nil {
			t.Fatal(err)
		}
		if rows, err := exectest.RunUnder(t, mem, j, 32<<10); err != nil || rows != 10000 {
			t.Fatalf("%s join over the limit, spilled: %d rows, %v", typ, rows, err)
		}
		j.KeepOuterOrder()
		if _, err := exectest.RunUnder(t, mem, j, 32<<10); !errors.Is(err, memlimit.ErrResourceExhausted) || !errors.Is(err, errkind.OutOfRange) {
			t.Fatalf("%s join over the limit: %v", typ, err)
		}
		rows, err := exectest.RunUnder(t, mem, j, 0)
		if err != nil || rows != 10000 {
			t.Fatalf("%s join without a limit: %d rows, %v", typ, rows, err)
		}
		if rows, err := exectest.RunUnder(t, mem, j, 64<<20); err != nil || rows != 10000 {
			t.Fatalf("%s join under a limit it fits: %d rows, %v", typ, rows, err)
		}
	}
}

// TestHashAggregateSpill: over the limit, hash aggregation aggregates the
// groups it has room for and passes the other rows to another pass
// through a spill file; the answer is the unlimited one, group for group
// and in the same order (first appearance), and no file is left.
func TestHashAggregateSpill(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, bs := spillInput(t, mem, 6, 20, 500)
	v, _ := exec.NewValuesExec(spillSchema, bs)
	defer v.Release()
	for _, b := range bs {
		b.Release()
	}
	aggs := []exec.Aggregate{{Func: exec.AggCountStar, Name: "n"}, {Func: exec.AggSum, Args: []int{2}, Name: "s"},
		{Func: exec.AggCount, Args: []int{0}, Distinct: true, Name: "d"}}
	for _, groups := range [][]int{{2}, {1, 0}, {0}} {
		agg, err := exec.NewHashAggregateExec(v, groups, aggs)
		if err != nil {
			t.Fatal(err)
		}
		want := runRows(t, mem, agg, 0, "")
		for _, limit := range []int64{8 << 10, 64 << 10} {
			dir := t.TempDir()
			got := runRows(t, mem, agg, limit, dir)
			if len(got) != len(want) {
				t.Fatalf("groups %v limit %d: %d groups, want %d", groups, limit, len(got), len(want))
			}
			for i := range want {
				if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
					t.Fatalf("groups %v limit %d: group %d is %v, want %v", groups, limit, i, got[i], want[i])
				}
			}
			assertNoSpillFiles(t, dir)
		}
	}
	many, _ := exec.NewHashAggregateExec(v, []int{2}, aggs)
	runRows(t, mem, many, 8<<10, t.TempDir())
	if many.Metrics().Snapshot()["spill_count"] < 2 {
		t.Fatal("10000 groups under 8kB took fewer than three passes: the test checks nothing")
	}
}

// runRows runs n to the end under a pool of limit bytes and returns its
// rows as text.
func runRows(t *testing.T, mem memory.Allocator, n exec.Node, limit int64, dir string) [][]string {
	t.Helper()
	ctx := context.Background()
	s, err := n.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 512, Pool: memlimit.NewPool(limit), SpillDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	bs, err := exec.Collect(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, b := range bs {
		for r := range int(b.NumRows()) {
			var row []string
			for _, c := range b.Columns() {
				row = append(row, c.ValueStr(r))
			}
			rows = append(rows, row)
		}
		b.Release()
	}
	return rows
}
