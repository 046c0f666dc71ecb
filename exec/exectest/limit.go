package exectest

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// RunUnder runs n to the end under a memory pool of limit bytes, with a
// spill directory of the test's own, and returns the rows and the error;
// every batch is released either way, so the caller's CheckedAllocator
// can assert zero outstanding bytes after a failure too.
func RunUnder(t *testing.T, mem *memory.CheckedAllocator, n exec.Node, limit int64) (int64, error) {
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
