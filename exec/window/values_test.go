package window_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// chunkedValues is a ValuesExec of rows in batches of batch rows (the
// caller releases it).
func chunkedValues(t testing.TB, mem memory.Allocator, schema *arrow.Schema, rows [][]any, batch int) *exec.ValuesExec {
	t.Helper()
	bs, err := exectest.Chunk(mem, schema, rows, batch, false)
	if err != nil {
		t.Fatal(err)
	}
	v, err := exec.NewValuesExec(schema, bs)
	for _, b := range bs {
		b.Release()
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}
