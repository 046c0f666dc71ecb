package engine_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stretchr/testify/require"
)

// TestMemoryLimitSQL: under SET memory_limit far below the data, ORDER BY
// spills, GROUP BY with few groups fits and with many spills; the answers
// equal the unlimited
// ones and an independent Go model; no spill file is left; a hash join
// whose build side is over the limit spills; the limit set at Open is a
// ceiling SET cannot lift.
func TestMemoryLimitSQL(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	spill := t.TempDir()
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 1024, SpillDir: spill})
	const n = 60000
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, g BIGINT NOT NULL);
		INSERT INTO t SELECT (g * 7919) % 1009, g FROM generate_series(1, 60000) AS g(g)`, nil)
	require.NoError(t, err)

	const order = "SELECT k, g FROM t ORDER BY k DESC, g"
	const group = "SELECT k % 10, count(*), sum(g) FROM t GROUP BY 1"
	free := run(t, db, order, nil)
	freeGroups := run(t, db, group, nil)
	const many = "SELECT g % 30000, count(*), min(k) FROM t GROUP BY 1"
	freeMany := run(t, db, many, nil)

	_, err = db.Exec(ctx, "SET memory_limit = '256kB'", nil)
	require.NoError(t, err)
	require.Equal(t, int64(256<<10), db.MemoryLimit())
	got := run(t, db, order, nil)
	require.Equal(t, free, got)
	// The model: the same rows sorted in Go.
	want := make([][]any, 0, n)
	for g := int64(1); g <= n; g++ {
		want = append(want, []any{(g * 7919) % 1009, g})
	}
	slices.SortFunc(want, func(a, b []any) int {
		if a[0].(int64) != b[0].(int64) {
			return int(b[0].(int64) - a[0].(int64))
		}
		return int(a[1].(int64) - b[1].(int64))
	})
	require.Equal(t, want, got)
	plan := run(t, db, "EXPLAIN ANALYZE "+order, nil)
	var text []string
	for _, r := range plan {
		text = append(text, r[0].(string))
	}
	require.Contains(t, strings.Join(text, "\n"), "spill_count=", "the sort did not spill: the test checks nothing")
	require.ElementsMatch(t, freeGroups, run(t, db, group, nil))
	// 30000 groups do not fit 256kB: the aggregation spills, same answer.
	require.Equal(t, freeMany, run(t, db, many, nil))
	plan = run(t, db, "EXPLAIN ANALYZE "+many, nil)
	text = text[:0]
	for _, r := range plan {
		text = append(text, r[0].(string))
	}
	require.Contains(t, strings.Join(text, "\n"), "spill_count=", "the aggregation did not spill")
	ents, err := os.ReadDir(spill)
	require.NoError(t, err)
	require.Empty(t, ents, "spill files left behind")

	// A self-join's build side is the whole table, over 256kB: it spills
	// (exec/join_spill.go; join_spill_test.go has more).
	require.Equal(t, [][]any{{int64(n)}}, run(t, db, "SELECT count(*) FROM t a JOIN t b ON a.g = b.g", nil))
	ents, err = os.ReadDir(spill)
	require.NoError(t, err)
	require.Empty(t, ents, "spill files left behind")

	_, err = db.Exec(ctx, "SET memory_limit = '12 parsecs'", nil)
	require.ErrorIs(t, err, memlimit.ErrBadSize)
	_, err = db.Exec(ctx, "SET work_mem = '1MB'", nil)
	require.ErrorIs(t, err, engine.ErrUnknownSetting)
	_, err = db.Exec(ctx, "RESET memory_limit", nil)
	require.NoError(t, err)
	require.Zero(t, db.MemoryLimit())

	// The limit given at Open is a ceiling.
	capped := engine.OpenMemory(engine.Options{Mem: mem, MemoryLimit: 1 << 20})
	require.Equal(t, int64(1<<20), capped.MemoryLimit())
	for _, q := range []string{"SET memory_limit = '2MB'", "SET memory_limit = 'unlimited'"} {
		_, err = capped.Exec(ctx, q, nil)
		require.True(t, errors.Is(err, engine.ErrSettingCeiling), "%s: %v", q, err)
	}
	_, err = capped.Exec(ctx, "SET memory_limit = '512kB'", nil)
	require.NoError(t, err)
	require.Equal(t, int64(512<<10), capped.MemoryLimit())
}
