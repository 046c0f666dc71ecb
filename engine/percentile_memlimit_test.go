package engine_test

import (
	"context"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stretchr/testify/require"
)

// TestOrderedSetAggregateMemoryLimit: percentile_cont, percentile_disc and
// mode hold their groups' values (exec/acc_orderedset.go); the hash
// aggregate reserves them, so far over the memory limit the query fails
// with the typed resource error instead of growing, and under it answers
// as without a limit (PostgreSQL 15's answer).
func TestOrderedSetAggregateMemoryLimit(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 1024})
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, g BIGINT NOT NULL);
		INSERT INTO t SELECT (g * 7919) % 1009, g FROM generate_series(1, 60000) AS g(g)`, nil)
	require.NoError(t, err)
	const q = "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY g), percentile_disc(0.5) WITHIN GROUP (ORDER BY g DESC), mode() WITHIN GROUP (ORDER BY k) FROM t"
	free := run(t, db, q, nil)
	// PostgreSQL 15 answers 30000.5, 30001, 1: k = 0 comes 59 times, 1 is the
	// first of the keys that come 60 times.
	require.Equal(t, [][]any{{30000.5, int64(30001), int64(1)}}, free)
	_, err = db.Exec(ctx, "SET memory_limit = '256kB'", nil)
	require.NoError(t, err)
	_, err = db.Exec(ctx, q, nil)
	require.ErrorIs(t, err, memlimit.ErrResourceExhausted)
	require.ErrorIs(t, err, errkind.OutOfRange)
	_, err = db.Exec(ctx, "SET memory_limit = '64MB'", nil)
	require.NoError(t, err)
	require.Equal(t, free, run(t, db, q, nil))
}
