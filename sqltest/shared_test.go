package sqltest

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
)

// TestSharedSubplanRunsOnce runs a WITH query read three times (a join and
// a scalar subquery) under EXPLAIN ANALYZE at threads 1, 2 and 4: the
// CTE's scan appears once in the plan and reads the table once, the
// shared plan reports one run, and each consumer replays every group.
// Mutation caught: compiling each occurrence (plan/shared.go's memo off)
// shows two scans; a run per consumer shows runs=3.
func TestSharedSubplanRunsOnce(t *testing.T) {
	ctx := context.Background()
	for _, threads := range []int{1, 2, 4} {
		for _, batch := range []int{7, 8192} {
			mem := exectest.Mem(t)
			db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: batch, Threads: threads})
			for _, q := range []string{
				"CREATE TABLE big (k BIGINT, g BIGINT, v BIGINT)",
				"INSERT INTO big SELECT i, i % 10, i FROM generate_series(1, 500) AS s(i)",
			} {
				res, err := db.Exec(ctx, q, nil)
				if err != nil {
					t.Fatal(err)
				}
				res.Release()
			}
			res, err := db.Exec(ctx, `EXPLAIN ANALYZE WITH t AS (SELECT g, sum(v) AS total FROM big GROUP BY g)
				SELECT a.g FROM t AS a JOIN t AS b ON a.g = b.g WHERE a.total = (SELECT max(total) FROM t)`, nil)
			if err != nil {
				t.Fatal(err)
			}
			plan := res.Plan
			res.Release()
			scans := regexp.MustCompile(`ScanExec: version=\d+, columns=\[g, v\].*output_rows=(\d+),`).FindAllStringSubmatch(plan, -1)
			if len(scans) != 1 || scans[0][1] != "500" {
				t.Fatalf("threads=%d batch=%d: want one scan of 500 rows:\n%s", threads, batch, plan)
			}
			if !strings.Contains(plan, "SharedExec: id=1 consumers=3") || !strings.Contains(plan, "runs=1]") ||
				strings.Count(plan, "SharedExec: id=1 (reads the run of the first consumer), metrics=[output_rows=10,") != 2 {
				t.Fatalf("threads=%d batch=%d: shared plan:\n%s", threads, batch, plan)
			}
		}
	}
}
