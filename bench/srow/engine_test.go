package srow

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"

	"github.com/stablerow/stablerow/bench/peer"
)

// TestEngineAgainstReference loads a small table in several fragments and
// checks that the scan matches the layout computed independently
// (peer.SyntheticTable), then every query kind against peer's reference
// model, before and after a delete.
func TestEngineAgainstReference(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	const rows, frag = 25_000, 10_000
	e, err := Open(t.TempDir(), Options{Mem: mem, FragmentRows: frag})
	require.NoError(t, err)
	require.NoError(t, e.Load(ctx, rows))
	_, err = e.Exec(ctx, "CREATE INDEX rid ON t USING btree (_rowid)")
	require.NoError(t, err)
	tb, err := e.ReadTable(ctx)
	require.NoError(t, err)
	require.Equal(t, peer.SyntheticTable(rows, frag), tb)

	check := func(tb *peer.Table) {
		for _, n := range []int{0, 1, 3000} {
			ids, err := peer.IDs(tb, n, 3)
			require.NoError(t, err)
			for _, kind := range []peer.Kind{peer.KindTake, peer.KindTakePayload} {
				got, err := e.Run(ctx, peer.Query{Kind: kind, IDs: ids})
				require.NoError(t, err)
				require.NoError(t, got.(*peer.TakeRows).CheckShape(n))
				require.NoError(t, peer.ExpectTake(tb, ids, kind == peer.KindTakePayload).Compare(got), "n=%d %v", n, kind)
			}
			if n == 0 {
				continue
			}
			// IN-lists stay short: the engine evaluates IN as an OR of
			// equalities, O(rows x keys).
			keys, err := peer.Keys(tb, rows, min(n, 50), 3)
			require.NoError(t, err)
			got, err := e.Run(ctx, peer.Query{Kind: peer.KindInK, Keys: keys})
			require.NoError(t, err)
			require.NoError(t, peer.ExpectK(tb, keys).Compare(got))
		}
	}
	check(tb)
	ids, err := peer.IDs(tb, 100, 1)
	require.NoError(t, err)
	plan, err := e.Explain(ctx, peer.Query{Kind: peer.KindTake, IDs: ids})
	require.NoError(t, err)
	require.Contains(t, plan, "TakeByKeyExec")
	t.Log(plan)

	n, err := e.Delete(ctx, peer.DeletePredicate)
	require.NoError(t, err)
	after, want := peer.ExpectDelete(tb, peer.DeleteLimit)
	require.EqualValues(t, want, n)
	check(after)
	live, err := e.ReadTable(ctx)
	require.NoError(t, err)
	require.Equal(t, after, live)

	// Recluster by k: rows move (new addresses, read back), ids stay; takes
	// go through the fragment reuse history, then through the optimized
	// index, and must match the reference model over the new layout.
	require.NoError(t, e.Recluster(ctx, "k"))
	moved, err := e.ReadTable(ctx)
	require.NoError(t, err)
	require.Equal(t, after.Len(), moved.Len())
	require.NotEqual(t, after.RowAddr, moved.RowAddr, "a recluster by a scrambled key moves rows")
	check(moved)
	plan, err = e.Explain(ctx, peer.Query{Kind: peer.KindTake, IDs: ids})
	require.NoError(t, err)
	require.Contains(t, strings.ToLower(plan), "remap", "index answers are translated through the history")
	require.NoError(t, e.OptimizeIndex(ctx, "rid"))
	check(moved)
	plan, err = e.Explain(ctx, peer.Query{Kind: peer.KindTake, IDs: ids})
	require.NoError(t, err)
	require.Contains(t, plan, "TakeByKeyExec")
	require.NotContains(t, strings.ToLower(plan), "remap", "the optimized index needs no translation")
}
