package plan_test

import (
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// TestWindowArgsAfterSort: a window function's computed arguments (lag's
// constant offset and default, sum's product) are appended after the
// window's sort, which then sorts only the input and the computed keys,
// with the same rows at every thread count (this catalog's scan does not
// split: engine's TestParallelWindows runs the per-partition plan).
func TestWindowArgsAfterSort(t *testing.T) {
	const q = "SELECT id, lag(id, 1, 0) OVER (PARTITION BY id % 3 ORDER BY id), " +
		"sum(id * 2) OVER (PARTITION BY id % 3 ORDER BY id) FROM t ORDER BY id"
	var serial [][]any
	for _, threads := range []int{1, 4} {
		mem := exectest.Mem(t)
		c := stdCatalog(t, mem)
		stmts, err := sql.Parse(q, sqlCatalog{c})
		if err != nil {
			t.Fatal(err)
		}
		rows, explain, err := run(t, mem, c, stmts[0].(*sql.Query).Plan, plan.Options{Threads: threads}, nil, 2)
		if err != nil {
			t.Fatalf("threads %d: %v\n%s", threads, err, explain)
		}
		// Below the window's sort (the second SortExec from the top; the
		// first is the ORDER BY's): the key, no argument.
		lines := strings.Split(explain, "\n")
		sorts := 0
		for i, l := range lines {
			if !strings.Contains(l, "SortExec:") {
				continue
			}
			if sorts++; sorts < 2 {
				continue
			}
			below := strings.Join(lines[i+1:], "\n")
			if strings.Contains(below, "window_arg") || !strings.Contains(below, "window_key") {
				t.Errorf("threads %d: the window's sort carries an argument (or lost its key):\n%s", threads, explain)
			}
			if !strings.Contains(strings.Join(lines[:i], "\n"), "window_arg") {
				t.Errorf("threads %d: no argument projection above the sort:\n%s", threads, explain)
			}
		}
		if sorts != 2 {
			t.Errorf("threads %d: %d SortExec, want 2:\n%s", threads, sorts, explain)
		}
		if threads == 1 {
			serial = rows
		} else {
			equalRows(t, rows, serial)
		}
		if len(rows) == 0 {
			t.Fatal("no rows")
		}
	}
}
