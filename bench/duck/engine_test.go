package duck

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/bench/peer"
)

// loaded opens a DuckDB holding a synthetic table of rows rows.
func loaded(t *testing.T, rows uint64, art bool) (*DB, *peer.Table) {
	t.Helper()
	db, err := Open(2)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	tb := peer.SyntheticTable(rows, 1000)
	require.NoError(t, db.LoadTable(tb))
	if art {
		require.NoError(t, db.IndexRowID())
	}
	return db, tb
}

// TestEngineAgainstReference checks every query kind on DuckDB, with and
// without the ART index, against peer's reference model, before and after a
// delete.
func TestEngineAgainstReference(t *testing.T) {
	ctx := context.Background()
	for _, art := range []bool{false, true} {
		db, tb := loaded(t, 5000, art)
		e := db.Engine("duckdb")
		check := func(tb *peer.Table) {
			for _, n := range []int{0, 1, 3000} {
				ids, err := peer.IDs(tb, n, 7)
				require.NoError(t, err)
				for _, payload := range []bool{false, true} {
					kind := peer.KindTake
					if payload {
						kind = peer.KindTakePayload
					}
					got, err := e.Run(ctx, peer.Query{Kind: kind, IDs: ids})
					require.NoError(t, err)
					require.NoError(t, got.(*peer.TakeRows).CheckShape(n))
					require.NoError(t, peer.ExpectTake(tb, ids, payload).Compare(got), "art=%v n=%d payload=%v", art, n, payload)
				}
				keys, err := peer.Keys(tb, 5000, n, 7)
				require.NoError(t, err)
				if n == 0 {
					continue // k IN () is not SQL
				}
				got, err := e.Run(ctx, peer.Query{Kind: peer.KindInK, Keys: keys})
				require.NoError(t, err)
				require.NoError(t, peer.ExpectK(tb, keys).Compare(got))
			}
		}
		check(tb)
		n, err := e.Delete(ctx, peer.DeletePredicate)
		require.NoError(t, err)
		after, want := peer.ExpectDelete(tb, peer.DeleteLimit)
		require.EqualValues(t, want, n)
		check(after)
		ids, err := peer.IDs(tb, 100, 1)
		require.NoError(t, err)
		text, err := e.Explain(ctx, peer.Query{Kind: peer.KindTake, IDs: ids})
		require.NoError(t, err)
		t.Logf("art=%v\n%s", art, text)

		// A reload (what follows a recluster in stablerow) replaces the rows.
		moved := peer.SyntheticTable(3000, 7)
		require.NoError(t, db.ReloadTable(moved))
		if art {
			require.NoError(t, db.IndexRowID())
		}
		check(moved)
	}
}
