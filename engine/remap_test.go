package engine_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
)

// TestDeferredRemapAndOptimize: after a recluster and a compaction with the
// index remap deferred, the seed query still returns every row's current
// address (translated through the fragment reuse history, not found by a
// fallback scan of the rewritten fragments); OptimizeIndex then folds the
// history into a new index in one commit and trims it.
func TestDeferredRemapAndOptimize(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem, Table: table.Options{MaxRowsPerFragment: 500, BatchRows: 64}})
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, s TEXT);
		INSERT INTO t SELECT (g * 7919) % 2000, 'v' FROM generate_series(0, 1999) AS g(g);
		CREATE INDEX rid ON t USING btree (_rowid);
		DELETE FROM t WHERE k < 100`, nil)
	require.NoError(t, err)
	tb, err := db.Table(ctx, "t")
	require.NoError(t, err)
	tb, err = tb.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 4, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	tb, err = tb.Compact(ctx, table.CompactOptions{TargetRows: 2000, MinDeletedFraction: 0.01, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	_, err = db.Exec(ctx, "INSERT INTO t VALUES (5000, 'late'); DELETE FROM t WHERE k = 150", nil)
	require.NoError(t, err)

	r := rand.New(rand.NewPCG(3, 3))
	ids := make([]int64, 600)
	for i := range ids {
		ids[i] = r.Int64N(2100)
	}
	check := func(wantRemap bool) {
		t.Helper()
		cur, err := db.Table(ctx, "t")
		require.NoError(t, err)
		res, err := db.Exec(ctx, seedQuery, map[string]any{"ids": ids})
		require.NoError(t, err)
		defer res.Release()
		uids := make([]uint64, len(ids))
		for i, id := range ids {
			uids[i] = uint64(id)
		}
		want, found := cur.Locate(uids)
		i := 0
		for _, b := range res.Batches {
			addr := b.Column(1).(*array.Uint64)
			for j := 0; j < addr.Len(); j++ {
				if found[i] {
					require.False(t, addr.IsNull(j), "id %d", ids[i])
					require.Equal(t, want[i], addr.Value(j), "id %d", ids[i])
				} else {
					require.True(t, addr.IsNull(j), "id %d", ids[i])
				}
				i++
			}
		}
		require.Equal(t, len(ids), i)
		require.Contains(t, res.Plan, "TakeByKeyExec")
		if wantRemap {
			require.Contains(t, res.Plan, "RowAddrRemapExec: column=_rowaddr, transitions=2")
			require.Contains(t, res.Plan, "IndexProbeExec: btree rid(_rowid)")
		} else {
			require.NotContains(t, res.Plan, "RowAddrRemapExec")
		}
		// The rewritten rows come from the index, not from scanning them:
		// only the one late fragment is left to the fallback.
		require.NotContains(t, res.Plan, "fallback_rows_scanned=1500")
	}
	check(true)
	require.NoError(t, db.OptimizeIndex(ctx, "t", "rid"))
	check(false)
	cur, err := db.Table(ctx, "t")
	require.NoError(t, err)
	hist, err := cur.History()
	require.NoError(t, err)
	require.Empty(t, hist, "no index needs the history after optimize")
	ix := cur.Index("rid")
	require.Equal(t, cur.FragmentIDs(), ix.Fragments.ToArray(), "the optimized index covers every fragment")
}
