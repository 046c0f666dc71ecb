package exec_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// runUnder runs n to the end under a pool of limit bytes and returns the
// rows and the error; every byte is released either way.
func runUnder(t *testing.T, mem *memory.CheckedAllocator, n exec.Node, limit int64) (int64, error) {
	t.Helper()
	ctx := context.Background()
	s, err := n.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 512, Pool: memlimit.NewPool(limit), SpillDir: t.TempDir()})
	if err != nil {
		return 0, err
	}
	bs, err := exec.Collect(ctx, s)
	var rows int64
	for _, b := range bs {
		rows += b.NumRows()
		b.Release()
	}
	return rows, err
}

// TestHashJoinBuildOverLimit: the build side does not spill; over the
// limit the join fails with the typed error (not a panic, not a partial
// answer), and the same join under no limit is complete.
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
		if _, err := runUnder(t, mem, j, 32<<10); !errors.Is(err, memlimit.ErrResourceExhausted) || !errors.Is(err, errkind.OutOfRange) {
			t.Fatalf("%s join over the limit: %v", typ, err)
		}
		rows, err := runUnder(t, mem, j, 0)
		if err != nil || rows != 10000 {
			t.Fatalf("%s join without a limit: %d rows, %v", typ, rows, err)
		}
		if rows, err := runUnder(t, mem, j, 64<<20); err != nil || rows != 10000 {
			t.Fatalf("%s join under a limit it fits: %d rows, %v", typ, rows, err)
		}
	}
}

// TestHashAggregateOverLimit: hash aggregation does not spill; a group
// table over the limit is the typed error. Few groups fit a small limit.
func TestHashAggregateOverLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, bs := spillInput(t, mem, 6, 20, 500)
	v, _ := exec.NewValuesExec(spillSchema, bs)
	defer v.Release()
	for _, b := range bs {
		b.Release()
	}
	count := []exec.Aggregate{{Func: exec.AggCountStar, Name: "n"}}
	many, err := exec.NewHashAggregateExec(v, []int{2}, count) // 10000 groups
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runUnder(t, mem, many, 64<<10); !errors.Is(err, memlimit.ErrResourceExhausted) {
		t.Fatalf("10000 groups under 64kB: %v", err)
	}
	if rows, err := runUnder(t, mem, many, 0); err != nil || rows != 10000 {
		t.Fatalf("no limit: %d rows, %v", rows, err)
	}
	few, _ := exec.NewHashAggregateExec(v, []int{0}, count) // 51 groups
	if rows, err := runUnder(t, mem, few, 64<<10); err != nil || rows != 51 {
		t.Fatalf("51 groups under 64kB: %d rows, %v", rows, err)
	}
}
