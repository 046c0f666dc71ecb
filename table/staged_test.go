package table_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// A staged transaction: its appends, deletes (of base rows and of its own
// rows) and updates are readable on its view and invisible in the store;
// VACUUM with the age guard off keeps its files (the transaction's intent
// names them) between statements; Commit publishes them as one version on
// top of a concurrent append, its own row ids renumbered past the
// other's; the result equals the model of both.
func TestStagedCommitOneVersion(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	st := store.NewMemory()
	tb, err := table.Create(ctx, st, userSchema, table.Options{MaxRowsPerFragment: 50, BatchRows: 8})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(7, 7))
	b := rowsBatch(t, mem, genRows(r, 120), nil)
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	require.Len(t, scanAll(t, tb, mem), 120)

	s := tb.Stage(ctx)
	own := genRows(r, 70)
	b = rowsBatch(t, mem, own, nil)
	v, err := s.Table().AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	require.True(t, v.IsStaged())
	view := scanAll(t, v, mem)
	require.Len(t, view, 190)
	// Delete 5 base rows and 5 own rows (ids at or past the base's).
	var delIDs []uint64
	for id := range view {
		if len(delIDs) < 10 && (id < 120) == (len(delIDs) < 5) {
			delIDs = append(delIDs, id)
		}
	}
	v, n, err := s.Table().DeleteRowIDs(ctx, delIDs)
	require.NoError(t, err)
	require.EqualValues(t, 10, n)
	latest, err := table.Open(ctx, st, table.Options{})
	require.NoError(t, err)
	require.Equal(t, tb.Version(), latest.Version(), "nothing published before Commit")

	rep, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1})
	require.NoError(t, err)
	require.Zero(t, rep.FilesDeleted, "the transaction's intent keeps its files")

	// A concurrent writer appends 30 rows and commits first.
	other := genRows(r, 30)
	b = rowsBatch(t, mem, other, nil)
	ot, err := tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	otherRows := scanAll(t, ot, mem)

	want := scanAll(t, v, mem)
	nt, err := s.Commit(ctx)
	require.NoError(t, err)
	require.False(t, nt.IsStaged())
	require.Equal(t, ot.Version()+1, nt.Version(), "one version for the transaction")
	got := scanAll(t, nt, mem)
	require.Len(t, got, 120+70-10+30)
	// The base rows and the other writer's keep their ids; the
	// transaction's own rows moved up by the 30 ids the other took.
	for id, row := range otherRows {
		if _, kept := want[id]; id < 120 && !kept {
			require.NotContains(t, got, id, "base row %d the transaction deleted", id)
			continue
		}
		require.Equal(t, row, got[id], "row id %d", id)
	}
	for id, row := range want {
		if id >= 120 {
			id += 30
		}
		require.Equal(t, row, got[id], "row id %d", id)
	}

	// The same transaction cannot be used again.
	_, err = s.Commit(ctx)
	require.ErrorIs(t, err, table.ErrStaged)
	_, err = s.Table().AppendBatches(ctx, nil, mem)
	require.NoError(t, err) // nothing to write is no commit
}

// Rollback publishes nothing, and once the intent is gone VACUUM removes
// the transaction's files as orphans.
func TestStagedRollbackLeavesOrphans(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	st := store.NewMemory()
	tb, err := table.Create(ctx, st, userSchema, table.Options{MaxRowsPerFragment: 50, BatchRows: 8})
	require.NoError(t, err)
	s := tb.Stage(ctx)
	b := rowsBatch(t, mem, genRows(rand.New(rand.NewPCG(1, 2)), 120), nil)
	_, err = s.Table().AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	s.Rollback()
	latest, err := table.Open(ctx, st, table.Options{})
	require.NoError(t, err)
	require.Equal(t, tb.Version(), latest.Version())
	rep, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1})
	require.NoError(t, err)
	require.Equal(t, 3, rep.FilesDeleted, "the 3 data files of the rolled back append")
}
