package sqltest

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// TestWindowExplainAnalyze: EXPLAIN ANALYZE shows the WindowExec with its
// own metrics (rows, partitions, the largest partition) at every thread
// count, and under a statement memory limit one partition larger than
// the limit fails with the typed memory error while many small ones fit
// (the window holds one partition; its sort spills). In parallel the
// plan below the window runs in partitions.
func TestWindowExplainAnalyze(t *testing.T) {
	ctx := context.Background()
	for _, threads := range []int{1, 4} {
		mem := exectest.Mem(t)
		db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 100, Threads: threads, MemoryLimit: 4 << 20, SpillDir: t.TempDir()})
		exec := func(q string) (*engine.Result, error) { return db.Exec(ctx, q, nil) }
		for _, q := range []string{
			"CREATE TABLE big (k BIGINT, g BIGINT, v BIGINT)",
			// Two fragments: at threads 4 the scan below the window runs in
			// partitions (the sort, under the memory limit, is one instance).
			"INSERT INTO big SELECT i, i % 100, i FROM generate_series(1, 100000) AS s(i)",
			"INSERT INTO big SELECT i, i % 100, i FROM generate_series(100001, 200000) AS s(i)",
		} {
			res, err := exec(q)
			if err != nil {
				t.Fatal(err)
			}
			res.Release()
		}
		res, err := exec("EXPLAIN ANALYZE SELECT k, sum(v) OVER (PARTITION BY g ORDER BY k ROWS 10 PRECEDING) FROM big")
		if err != nil {
			t.Fatalf("threads=%d: 100 partitions of 2000 rows under 4 MB: %v", threads, err)
		}
		plan := res.Plan
		res.Release()
		m := regexp.MustCompile(`WindowExec: partition=\[g@1\], order=\[k ASC\], exprs=\[sum\(v@2\) ROWS BETWEEN 10 PRECEDING AND CURRENT ROW as expr0\], metrics=\[output_rows=200000, .*max_partition_rows=2000, partitions=100\]`)
		if !m.MatchString(plan) || (threads > 1) != strings.Contains(plan, "ScanExec: version=3, columns=[k, g, v], fragments=all, partitions=") {
			t.Fatalf("threads=%d: plan:\n%s", threads, plan)
		}
		_, err = exec("SELECT k, sum(v) OVER (ORDER BY k ROWS 10 PRECEDING) FROM big")
		if !errors.Is(err, memlimit.ErrResourceExhausted) || !errors.Is(err, errkind.OutOfRange) {
			t.Fatalf("threads=%d: one partition of 200000 rows under 4 MB: %v", threads, err)
		}
	}
}
