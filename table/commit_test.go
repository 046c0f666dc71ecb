package table_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// TestCommitRace: writers on separate snapshots of one table race their
// appends and deletes; every commit either lands (rebased) or fails with
// ErrConflict, and the final table holds exactly the rows the landed
// commits say, with unique row ids.
func TestCommitRace(t *testing.T) {
	for _, kind := range []string{"memory", "local"} {
		t.Run(kind, func(t *testing.T) {
			mem := exectest.Mem(t)
			ctx := context.Background()
			var st store.Store = store.NewMemory()
			if kind == "local" {
				var err error
				st, err = store.NewLocal(t.TempDir())
				require.NoError(t, err)
			}
			base, err := table.Create(ctx, st, userSchema, table.Options{})
			require.NoError(t, err)
			const writers = 4
			rounds := 25
			if testing.Short() {
				rounds = 10
			}
			var mu sync.Mutex
			appended := map[int64]bool{} // k values are unique per append
			deleted := map[int64]bool{}
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(w), 7))
					for round := range rounds {
						tb, err := base.Latest(ctx)
						if err != nil {
							t.Error(err)
							return
						}
						if w%2 == 1 && round%3 == 2 && tb.LiveRows() > 0 {
							// Delete one row chosen from this writer's snapshot.
							sc, err := tb.Scan(ctx, table.ScanOptions{Columns: []string{"k", "_rowid"}, Mem: mem})
							if err != nil {
								t.Error(err)
								return
							}
							var ks []int64
							var ids []uint64
							for sc.Next() {
								b := sc.RecordBatch()
								ks = append(ks, b.Column(0).(*array.Int64).Int64Values()...)
								ids = append(ids, b.Column(1).(*array.Uint64).Uint64Values()...)
							}
							sc.Release()
							i := r.IntN(len(ks))
							_, n, err := tb.DeleteRowIDs(ctx, []uint64{ids[i]})
							if err != nil && !errors.Is(err, table.ErrConflict) {
								t.Error(err)
								return
							}
							if err == nil && n == 1 {
								mu.Lock()
								deleted[ks[i]] = true
								mu.Unlock()
							}
							continue
						}
						k := int64(w*100000 + round*100)
						var rows [][]any
						for j := range 1 + r.IntN(50) {
							rows = append(rows, []any{k + int64(j), nil, nil})
						}
						b, err := exectest.Batch(mem, userSchema, rows)
						if err != nil {
							t.Error(err)
							return
						}
						_, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
						b.Release()
						if err != nil {
							t.Errorf("append must always rebase: %v", err)
							return
						}
						mu.Lock()
						for _, row := range rows {
							appended[row[0].(int64)] = true
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			final, err := table.Open(ctx, st, table.Options{})
			require.NoError(t, err)
			got := scanAll(t, final, mem) // also checks row id uniqueness
			gotK := map[int64]bool{}
			for _, row := range got {
				require.False(t, gotK[row.k], "k %d twice", row.k)
				gotK[row.k] = true
			}
			want := map[int64]bool{}
			for k := range appended {
				if !deleted[k] {
					want[k] = true
				}
			}
			require.Equal(t, want, gotK)
			vs, err := table.Versions(ctx, st)
			require.NoError(t, err)
			for i, v := range vs {
				require.Equal(t, uint64(i+1), v.Version, "versions are dense")
			}
		})
	}
}

// TestUpdateDeleteConflict: an update and a delete of the same row from the
// same base: whichever commits second fails with ErrConflict (no lost
// delete, no resurrected row); a delete of another row of the same fragment
// after an update also refuses, an append never does.
func TestUpdateDeleteConflict(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	st := store.NewMemory()
	tb, err := table.Create(ctx, st, userSchema, table.Options{})
	require.NoError(t, err)
	b, err := exectest.Batch(mem, userSchema, [][]any{{int64(1), "a", 1.0}, {int64(2), "b", 2.0}, {int64(3), "c", 3.0}})
	require.NoError(t, err)
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)

	// Delete first, then an update of the same row from the old snapshot.
	_, _, err = tb.DeleteRowIDs(ctx, []uint64{1})
	require.NoError(t, err)
	ub := rowsBatch(t, mem, []refRow{{k: 20}}, []uint64{1})
	rdr, err := array.NewRecordReader(ub.Schema(), []arrow.RecordBatch{ub})
	require.NoError(t, err)
	_, _, err = tb.Update(ctx, rdr, mem)
	rdr.Release()
	ub.Release()
	require.ErrorIs(t, err, table.ErrConflict)

	// Update first (from the latest), then a delete from the pre-update snapshot.
	cur, err := tb.Latest(ctx)
	require.NoError(t, err)
	ub = rowsBatch(t, mem, []refRow{{k: 30}}, []uint64{2})
	rdr, err = array.NewRecordReader(ub.Schema(), []arrow.RecordBatch{ub})
	require.NoError(t, err)
	_, _, err = cur.Update(ctx, rdr, mem)
	rdr.Release()
	ub.Release()
	require.NoError(t, err)
	_, _, err = cur.DeleteRowIDs(ctx, []uint64{2})
	require.ErrorIs(t, err, table.ErrConflict)

	final, err := table.Open(ctx, st, table.Options{})
	require.NoError(t, err)
	got := scanAll(t, final, mem)
	require.Equal(t, map[uint64]refRow{0: {k: 1, name: "a", score: 1.0}, 2: {k: 30}}, got)
}

// TestDeleteRebasedOverRewrite: a delete prepared on a snapshot from before
// a compaction and a recluster commits after them; it finds its rows again
// by row id in the rewritten fragments. Nothing is lost or double counted.
func TestDeleteRebasedOverRewrite(t *testing.T) {
	for _, kind := range []string{"compact", "recluster"} {
		t.Run(kind, func(t *testing.T) {
			mem := exectest.Mem(t)
			ctx := context.Background()
			st := store.NewMemory()
			tb, err := table.Create(ctx, st, userSchema, table.Options{MaxRowsPerFragment: 40, BatchRows: 8})
			require.NoError(t, err)
			var rows [][]any
			for i := range 200 {
				rows = append(rows, []any{int64((i * 37) % 200), nil, nil})
			}
			b, err := exectest.Batch(mem, userSchema, rows)
			require.NoError(t, err)
			tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
			b.Release()
			require.NoError(t, err)
			tb, _, err = tb.DeleteRowIDs(ctx, []uint64{1, 2, 3, 50, 51}) // make fragments deletion-heavy
			require.NoError(t, err)
			old := tb
			var rewritten *table.Table
			if kind == "compact" {
				rewritten, err = tb.Compact(ctx, table.CompactOptions{TargetRows: 200, MinDeletedFraction: 0.01, Mem: mem})
			} else {
				rewritten, err = tb.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 3, Mem: mem})
			}
			require.NoError(t, err)
			require.NotEqual(t, old.FragmentIDs(), rewritten.FragmentIDs(), "the rewrite replaced fragments")
			// The old snapshot deletes ids 10, 20, 3 (already gone) and 199.
			nt, n, err := old.DeleteRowIDs(ctx, []uint64{10, 20, 3, 199})
			require.NoError(t, err)
			require.Equal(t, uint64(3), n)
			got := scanAll(t, nt, mem)
			require.Len(t, got, 200-5-3)
			for _, id := range []uint64{1, 2, 3, 50, 51, 10, 20, 199} {
				_, ok := got[id]
				require.False(t, ok, "row id %d must be deleted", id)
			}
			require.Equal(t, uint64(200-8), nt.LiveRows())
		})
	}
}
