package engine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stretchr/testify/require"
)

// TestGroupingSetsUnderMemoryLimit: ROLLUP's one aggregation (the input
// crossed with the set ids, sql/groupingsets.go) is the hash aggregate: far
// over the memory limit it spills and gives the unlimited answer, at one
// thread and at four, and checks the totals against a model.
func TestGroupingSetsUnderMemoryLimit(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	spill := t.TempDir()
	for _, threads := range []int{1, 4} {
		db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 1024, SpillDir: spill, Threads: threads})
		_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, g BIGINT NOT NULL);
			INSERT INTO t SELECT (g * 7919) % 1009, g FROM generate_series(1, 60000) AS g(g)`, nil)
		require.NoError(t, err)
		const q = "SELECT g % 30000, k % 3, grouping(g % 30000, k % 3), count(*), sum(g) FROM t GROUP BY ROLLUP (g % 30000, k % 3)"
		free := run(t, db, q, nil)
		// 30000 x (up to 3) + 30000 + 1 groups.
		var total, totals int64
		for _, r := range free {
			if r[2].(int32) == 3 {
				total, totals = r[3].(int64), totals+1
				require.Equal(t, int64(60000*60001/2), r[4].(int64))
			}
		}
		require.Equal(t, int64(60000), total)
		require.Equal(t, int64(1), totals)
		_, err = db.Exec(ctx, "SET memory_limit = '256kB'", nil)
		require.NoError(t, err)
		require.ElementsMatch(t, free, run(t, db, q, nil))
		var text []string
		for _, r := range run(t, db, "EXPLAIN ANALYZE "+q, nil) {
			text = append(text, r[0].(string))
		}
		require.Contains(t, strings.Join(text, "\n"), "spill_count=", "the aggregation did not spill: the test checks nothing")
		ents, err := os.ReadDir(spill)
		require.NoError(t, err)
		require.Empty(t, ents, "spill files left behind")
	}
}
