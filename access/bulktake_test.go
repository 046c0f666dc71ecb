package access

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/internal/arrowtest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// takeFixture is a table whose _rowid index (when indexed) is stale in
// every way the resolver must handle: rows appended after the build,
// deleted rows, a recluster of covered rows only and one mixing covered
// and uncovered rows, then a compaction.
func takeFixture(t *testing.T, indexed bool) (*table.Table, *Layer) {
	ctx := context.Background()
	mem := arrowtest.Mem(t)
	tb, err := table.Create(ctx, store.NewMemory(), schema, table.Options{MaxRowsPerFragment: 100, BatchRows: 16})
	require.NoError(t, err)
	tb = appendRows(t, tb, 0, 400) // fragments 0-3
	l := New(mem)
	if indexed {
		tb, err = l.CreateIndex(ctx, tb, "t", "rid", table.RowID)
		require.NoError(t, err)
	}
	tb = appendRows(t, tb, 400, 300) // 4-6, not indexed
	tb, _, err = tb.DeleteRowIDs(ctx, []uint64{7, 150, 250, 420})
	require.NoError(t, err)
	// Covered rows only: the destinations derive coverage.
	tb, err = tb.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 3, Fragments: []uint32{0, 1}, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	// Covered and uncovered rows mixed: the index must not answer there.
	tb, err = tb.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 2, Fragments: []uint32{2, 4}, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	// Deleted after the rewrite, in a derived destination and in fragment
	// 3 (covered directly): the index still answers for them.
	tb, _, err = tb.DeleteRowIDs(ctx, []uint64{20, 30, 350})
	require.NoError(t, err)
	tb = appendRows(t, tb, 700, 30)
	tb, err = tb.Compact(ctx, table.CompactOptions{TargetRows: 250, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	return tb, l
}

type takenRow struct {
	k     int64
	rowid uint64
}

// plainTake is the oracle: every id located through the row id sequences
// and taken in input order by one Table.Take.
func plainTake(t *testing.T, tb *table.Table, ids []uint64) map[uint64]takenRow {
	mem := arrowtest.Mem(t)
	addrs, found := tb.Locate(ids)
	b, err := tb.Take(context.Background(), addrs, found, []string{"k", table.RowID}, mem)
	require.NoError(t, err)
	defer b.Release()
	out := map[uint64]takenRow{}
	k, rid := b.Column(0).(*array.Int64), b.Column(1).(*array.Uint64)
	for i := range ids {
		if found[i] {
			out[uint64(i)+1] = takenRow{k.Value(i), rid.Value(i)} // by ord: 1-based
		}
	}
	return out
}

// TestBulkTakeMatchesPlainTake: the fragment-split take returns, for each
// input position, the row the plain take returns there, and lists exactly
// the positions the plain take finds nothing for; with and without a
// (stale) _rowid index, tiny and default task sizes, 1 and 3 workers.
func TestBulkTakeMatchesPlainTake(t *testing.T) {
	ctx := context.Background()
	mem := arrowtest.Mem(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, indexed := range []bool{false, true} {
		tb, l := takeFixture(t, indexed)
		ids := make([]uint64, 2000)
		for i := range ids {
			ids[i] = uint64(r.IntN(800)) // duplicates, deleted and unknown ids
		}
		want := plainTake(t, tb, ids)
		for _, o := range []TakeOptions{{MaxTaskRows: 7, Workers: 1}, {MaxTaskRows: 7, Workers: 3}, {Workers: 2}} {
			got := map[uint64]takenRow{}
			p, err := l.BulkTake(ctx, tb, ids, []string{"k", table.RowID}, o, mem, func(b arrow.RecordBatch) error {
				require.Equal(t, OrdColumn, b.Schema().Field(2).Name)
				k, rid, ord := b.Column(0).(*array.Int64), b.Column(1).(*array.Uint64), b.Column(2).(*array.Uint64)
				for i := range int(b.NumRows()) {
					_, dup := got[ord.Value(i)]
					require.False(t, dup, "ordinal %d twice", ord.Value(i))
					got[ord.Value(i)] = takenRow{k.Value(i), rid.Value(i)}
				}
				return nil
			})
			require.NoError(t, err)
			require.Equal(t, want, got, "indexed=%v %+v", indexed, o)
			require.Len(t, p.Missing, len(ids)-len(want))
			for _, m := range p.Missing {
				require.NotContains(t, want, Ord(m))
			}
			limit := o.MaxTaskRows
			if limit == 0 {
				limit = DefaultMaxTaskRows
			}
			for _, k := range p.Tasks {
				require.LessOrEqual(t, len(k.Ords), limit)
			}
		}
	}
}

// TestTakeTaskJSON: a task travels as JSON and a worker holding its own
// snapshot of the version runs it; a task of another version, format, or
// naming a row that is not live is refused with a typed error.
func TestTakeTaskJSON(t *testing.T) {
	ctx := context.Background()
	mem := arrowtest.Mem(t)
	tb, l := takeFixture(t, true)
	ids := []uint64{5, 6, 7, 8, 310, 311, 599, 600, 729}
	p, err := l.PlanTake(ctx, tb, ids, TakeOptions{})
	require.NoError(t, err)
	require.Equal(t, []uint64{2}, p.Missing) // id 7 is deleted
	want := plainTake(t, tb, ids)
	worker, err := table.OpenVersion(ctx, tb.Store(), p.Version, table.Options{})
	require.NoError(t, err)
	n := 0
	for i := range p.Tasks {
		b, err := json.Marshal(&p.Tasks[i])
		require.NoError(t, err)
		var k TakeTask
		require.NoError(t, json.Unmarshal(b, &k))
		rb, err := ExecuteTake(ctx, worker, &k, []string{"k", table.RowID}, mem)
		require.NoError(t, err)
		for j := range int(rb.NumRows()) {
			ord := rb.Column(2).(*array.Uint64).Value(j)
			require.Equal(t, want[ord], takenRow{rb.Column(0).(*array.Int64).Value(j), rb.Column(1).(*array.Uint64).Value(j)})
			n++
		}
		rb.Release()
	}
	require.Equal(t, len(want), n)

	bad := func(k TakeTask, snap *table.Table) {
		t.Helper()
		b, err := ExecuteTake(ctx, snap, &k, []string{"k"}, mem)
		if err == nil {
			b.Release()
		}
		require.ErrorIs(t, err, ErrTakeTask)
		require.ErrorIs(t, err, errkind.InvalidArgument)
	}
	k := p.Tasks[0]
	old, err := table.OpenVersion(ctx, tb.Store(), p.Version-1, table.Options{})
	require.NoError(t, err)
	bad(k, old)
	k2 := k
	k2.Format = 9
	bad(k2, tb)
	k3 := k
	k3.Offsets = append(slices.Clone(k.Offsets), k.Offsets[0])
	bad(k3, tb)
	// A row deleted since the plan (a task replayed on a newer version).
	snap, _, err := tb.DeleteRowIDs(ctx, []uint64{ids[0]})
	require.NoError(t, err)
	pk, err := l.PlanTake(ctx, tb, ids[:1], TakeOptions{})
	require.NoError(t, err)
	pk.Tasks[0].Version = snap.Version()
	bad(pk.Tasks[0], snap)
}
