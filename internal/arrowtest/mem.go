package arrowtest

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Mem returns a CheckedAllocator that asserts zero outstanding bytes at t.Cleanup.
func Mem(t testing.TB) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}
