package engine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
)

// TestDistinctOnUnderMemoryLimit: DISTINCT ON over far more rows than
// SET memory_limit holds spills in its sort and keeps one row per key,
// the first in ORDER BY order: the answer equals the unlimited one and a
// Go model (the largest g of each k), and no spill file is left.
func TestDistinctOnUnderMemoryLimit(t *testing.T) {
	ctx := context.Background()
	spill := t.TempDir()
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t), BatchSize: 1024, SpillDir: spill})
	const n, keys = 60000, 1009
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, g BIGINT NOT NULL);
		INSERT INTO t SELECT (g * 7919) % 1009, g FROM generate_series(1, 60000) AS g(g)`, nil)
	require.NoError(t, err)
	const q = "SELECT DISTINCT ON (k) k, g FROM t ORDER BY k, g DESC"
	free := run(t, db, q, nil)
	_, err = db.Exec(ctx, "SET memory_limit = '256kB'", nil)
	require.NoError(t, err)
	got := run(t, db, q, nil)
	require.Equal(t, free, got)
	want := make([][]any, keys)
	for g := int64(1); g <= n; g++ {
		k := (g * 7919) % keys
		if want[k] == nil || want[k][1].(int64) < g {
			want[k] = []any{k, g}
		}
	}
	require.Equal(t, want, got)
	var text []string
	for _, r := range run(t, db, "EXPLAIN ANALYZE "+q, nil) {
		text = append(text, r[0].(string))
	}
	require.Contains(t, strings.Join(text, "\n"), "spill_count=", "the sort did not spill: the test checks nothing")
	ents, err := os.ReadDir(spill)
	require.NoError(t, err)
	require.Empty(t, ents, "spill files left behind")
}
