package exectest

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/internal/arrowtest"
)

// Mem returns a CheckedAllocator that asserts zero outstanding bytes at
// t.Cleanup (arrowtest.Mem).
func Mem(t testing.TB) *memory.CheckedAllocator {
	t.Helper()
	return arrowtest.Mem(t)
}

// Batch builds a batch from rows of Go values; nil is NULL (arrowtest.Batch).
func Batch(mem memory.Allocator, schema *arrow.Schema, rows [][]any) (arrow.RecordBatch, error) {
	return arrowtest.Batch(mem, schema, rows)
}

// Rows reads batches back into Go values (arrowtest.Rows).
func Rows(bs ...arrow.RecordBatch) ([][]any, error) { return arrowtest.Rows(bs...) }
