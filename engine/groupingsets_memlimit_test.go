package engine_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stretchr/testify/require"
)

// TestGroupingSetsUnderMemoryLimit: ROLLUP's finest aggregation (the
// input's rows by all the keys, to partial states, plan/rollup.go) and
// the merge of its states into each set are hash aggregates: far over the
// memory limit the finest one spills and the answer is the unlimited one,
// at one thread and at four; the totals are checked against a model.
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
		// Compared sorted: ElementsMatch is quadratic in the 120,000 rows.
		require.Equal(t, sortedText(free), sortedText(run(t, db, q, nil)))
		var text []string
		for _, r := range run(t, db, "EXPLAIN ANALYZE "+q, nil) {
			text = append(text, r[0].(string))
		}
		require.Contains(t, strings.Join(text, "\n"), "spill_count=", "the aggregation did not spill: the test checks nothing")
		// Rolled up (plan/rollup.go): the finest aggregation, over the
		// input's rows, is the one that spills, as the expansion's did.
		partial := ""
		for _, l := range text {
			if strings.Contains(l, "HashAggregateExec: mode=Partial") {
				partial = l
			}
		}
		require.Contains(t, partial, "spill_count=", "the finest aggregation did not spill")
		ents, err := os.ReadDir(spill)
		require.NoError(t, err)
		require.Empty(t, ents, "spill files left behind")
	}
}

// sortedText is rows printed, one string a row, sorted.
func sortedText(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r...)
	}
	slices.Sort(out)
	return out
}

// TestDisableRollupOption: engine.Options.DisableRollup reaches the
// planner: with it a ROLLUP runs as its expansion (no Partial
// aggregation), without it rolled up, and both answer alike (the rows
// checked by hand: 3 groups by k, 1 total).
func TestDisableRollupOption(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	const q = "SELECT k, count(*), sum(v) FROM t GROUP BY ROLLUP (k)"
	want := []string{"1 2 3", "2 1 5", "<nil> 1 7", "<nil> 4 15"}
	for _, off := range []bool{false, true} {
		db := engine.OpenMemory(engine.Options{Mem: mem, DisableRollup: off})
		_, err := db.Exec(ctx, "CREATE TABLE t (k BIGINT, v BIGINT); INSERT INTO t VALUES (1, 1), (1, 2), (2, 5), (NULL, 7)", nil)
		require.NoError(t, err)
		require.Equal(t, want, sortedText(run(t, db, q, nil)))
		var text []string
		for _, r := range run(t, db, "EXPLAIN "+q, nil) {
			text = append(text, r[0].(string))
		}
		require.Equal(t, !off, strings.Contains(strings.Join(text, "\n"), "mode=Partial"), "DisableRollup=%v:\n%s", off, strings.Join(text, "\n"))
	}
}
