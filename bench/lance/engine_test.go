package lance

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/bench/peer"
	"github.com/stablerow/stablerow/errkind"
)

// started runs the peer over a fresh database of rows generated rows, or
// skips when node or the npm dependency is missing (bench/lance: npm ci).
func started(t *testing.T, rows int) *Engine {
	t.Helper()
	if err := Available("."); err != nil {
		require.ErrorIs(t, err, errkind.NotFound)
		t.Skipf("LanceDB peer not installed: %v", err)
	}
	e, err := Start(".", filepath.Join(t.TempDir(), "db"))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	_, err = e.Load(context.Background(), rows)
	require.NoError(t, err)
	return e
}

// TestLanceAgainstModel checks LanceDB's answers, through peer.cjs's
// restoration of the seed contract, against the generator model (not
// against another engine): before and after a delete, after an update and
// a compaction (row ids stay stable), and after a reopen.
func TestLanceAgainstModel(t *testing.T) {
	ctx := context.Background()
	const rows = 20000
	e := started(t, rows)
	model := peer.Model{Generated: rows}
	tb := peer.SyntheticTable(rows, rows)
	ids, err := peer.IDs(tb, 3000, 5)
	require.NoError(t, err)
	check := func(what string) {
		got, err := e.Run(ctx, peer.Query{Kind: peer.KindContent, IDs: ids})
		require.NoError(t, err)
		require.NoError(t, model.Content(ids).Compare(got), what)
		take, err := e.Run(ctx, peer.Query{Kind: peer.KindTakePayload, IDs: ids})
		require.NoError(t, err)
		tr := take.(*peer.TakeRows)
		require.NoError(t, tr.CheckShape(len(ids)))
		want := model.Content(ids)
		for i := range ids {
			require.Equal(t, want.Valid[i], tr.PayloadValid[i], "%s: row %d", what, i)
			if want.Valid[i] {
				require.Equal(t, want.Payload[i], tr.Payload[i], "%s: row %d", what, i)
			}
		}
		d, err := e.RunTimed(ctx, peer.Query{Kind: peer.KindTakePayload, IDs: ids})
		require.NoError(t, err)
		require.Positive(t, d)
	}
	check("loaded")
	n, err := e.Delete(ctx, peer.DeletePredicate)
	require.NoError(t, err)
	_, want := peer.ExpectDelete(tb, peer.DeleteLimit)
	require.EqualValues(t, want, n)
	model.Deleted = true
	check("after delete")
	_, err = e.Update(ctx, "payload >= 0.9")
	require.NoError(t, err)
	_, stats, err := e.Optimize(ctx)
	require.NoError(t, err)
	t.Logf("optimize: %s", stats)
	check("after update + compaction")
	_, err = e.Reopen(ctx)
	require.NoError(t, err)
	check("after reopen")
	b, err := DiskBytes(e.dataDir)
	require.NoError(t, err)
	require.Positive(t, b)
}

// TestLancePeerErrors: a bad request comes back as ErrPeer, and the peer
// keeps answering.
func TestLancePeerErrors(t *testing.T) {
	ctx := context.Background()
	e := started(t, 100)
	_, err := e.Delete(ctx, "no_such_column < 1")
	require.ErrorIs(t, err, ErrPeer)
	require.ErrorIs(t, err, errkind.Internal)
	_, err = e.Run(ctx, peer.Query{Kind: peer.KindInK, Keys: []int64{1}})
	require.Error(t, err)
	got, err := e.Run(ctx, peer.Query{Kind: peer.KindContent, IDs: []uint64{7, 7, 1000}})
	require.NoError(t, err)
	require.NoError(t, peer.Model{Generated: 100}.Content([]uint64{7, 7, 1000}).Compare(got))
}

// FuzzDecodeAnswer: any bytes decode to a well-formed answer or
// ErrProtocol, never a panic.
func FuzzDecodeAnswer(f *testing.F) {
	f.Add([]byte{}, 0, true)
	f.Add(make([]byte, 17), 1, false)
	f.Add(append([]byte{1}, make([]byte, 16)...), 1, true)
	f.Add([]byte{2, 0, 0}, 1, true)
	f.Fuzz(func(t *testing.T, b []byte, n int, content bool) {
		if n < 0 || n > 1<<16 {
			return
		}
		kind := peer.KindTakePayload
		if content {
			kind = peer.KindContent
		}
		a, err := decodeAnswer(b, n, kind)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error %v is not ErrProtocol", err)
			}
			return
		}
		if a.Len() != n {
			t.Fatalf("%d rows for %d ids", a.Len(), n)
		}
		if tr, ok := a.(*peer.TakeRows); ok {
			if err := tr.CheckShape(n); err != nil {
				t.Fatal(err)
			}
		}
	})
}
