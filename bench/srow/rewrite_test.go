package srow

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"

	"github.com/stablerow/stablerow/bench/peer"
)

// TestContentThroughRewrites checks stablerow's content answers against
// the generator model (not against its own scan) after a delete, an update
// that rewrites rows with their own content, a compaction with the index
// remap deferred, and OptimizeIndex; and that the scan still matches the
// model.
func TestContentThroughRewrites(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	const rows, frag = 25_000, 10_000
	e, err := Open(t.TempDir(), Options{Mem: mem, FragmentRows: frag})
	require.NoError(t, err)
	require.NoError(t, e.Load(ctx, rows))
	_, err = e.Exec(ctx, "CREATE INDEX rid ON t USING btree (_rowid)")
	require.NoError(t, err)
	model := peer.Model{Generated: rows}
	ids, err := peer.IDs(peer.SyntheticTable(rows, frag), 4000, 9)
	require.NoError(t, err)
	check := func(what string) {
		got, err := e.Run(ctx, peer.Query{Kind: peer.KindContent, IDs: ids})
		require.NoError(t, err)
		require.NoError(t, model.Content(ids).Compare(got), what)
		scan, err := e.ReadTable(ctx)
		require.NoError(t, err)
		_, err = model.CheckScan(scan)
		require.NoError(t, err, what)
	}
	check("loaded")
	_, err = e.Delete(ctx, peer.DeletePredicate)
	require.NoError(t, err)
	model.Deleted = true
	check("after delete")
	var upd []uint64
	for id := range uint64(rows) {
		if model.Live(id) && peer.Payload(id) >= 0.9 {
			upd = append(upd, id)
		}
	}
	n, err := e.UpdateSame(ctx, upd)
	require.NoError(t, err)
	require.EqualValues(t, len(upd), n)
	check("after update")
	require.NoError(t, e.Compact(ctx))
	check("after compaction")
	require.NoError(t, e.OptimizeIndex(ctx, "rid"))
	check("after optimize")
}
