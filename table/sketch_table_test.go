package table_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// TestDistinctCounts: a table's distinct counts, merged from the
// sketches each of its files got when written, are within 3 % of the
// truth per column (all distinct, 1000 values, one value, all NULL),
// however the rows are spread over fragments; deleting rows caps them at
// the live rows; compaction's rewritten files carry sketches as well.
func TestDistinctCounts(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "k", Type: arrow.PrimitiveTypes.Int32},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "one", Type: arrow.PrimitiveTypes.Float64},
		{Name: "none", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	tb, err := table.Create(ctx, store.NewMemory(), sch, table.Options{MaxRowsPerFragment: 7000, BatchRows: 1024})
	require.NoError(t, err)
	const n = 40_000
	for part := range 4 { // four appends, ten thousand rows each
		bld := array.NewRecordBuilder(mem, sch)
		for i := part * n / 4; i < (part+1)*n/4; i++ {
			bld.Field(0).(*array.Int64Builder).Append(int64(i))
			bld.Field(1).(*array.Int32Builder).Append(int32(i % 1000))
			bld.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("s%07d", i))
			bld.Field(3).(*array.Float64Builder).Append(1.5)
			bld.Field(4).AppendNull()
		}
		b := bld.NewRecordBatch()
		bld.Release()
		tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
		b.Release()
		require.NoError(t, err)
	}
	require.Greater(t, len(tb.Fragments()), 4)
	got, ok, err := tb.Manifest().DistinctCounts()
	require.NoError(t, err)
	require.True(t, ok)
	want := []float64{n, 1000, n, 1, 0}
	for c := range want {
		require.InDelta(t, want[c], got[c], 0.03*want[c]+0.5, "column %s", sch.Field(c).Name)
	}

	// Delete all but 100 rows: every count is at most the live rows.
	ids := make([]uint64, 0, n-100)
	for _, f := range tb.Fragments() {
		for _, id := range f.RowIDs.AppendTo(nil) {
			if id >= 100 {
				ids = append(ids, id)
			}
		}
	}
	tb, _, err = tb.DeleteRowIDs(ctx, ids)
	require.NoError(t, err)
	got, ok, err = tb.Manifest().DistinctCounts()
	require.NoError(t, err)
	require.True(t, ok)
	require.LessOrEqual(t, got[0], 100.0)
	require.LessOrEqual(t, got[2], 100.0)

	// Compaction rewrites the live rows into new files, each with its
	// sketches: the counts are the live rows' again.
	tb, err = tb.Compact(ctx, table.CompactOptions{})
	require.NoError(t, err)
	got, ok, err = tb.Manifest().DistinctCounts()
	require.NoError(t, err)
	require.True(t, ok)
	for c, w := range []float64{100, 100, 100, 1, 0} {
		require.InDelta(t, w, got[c], 0.03*w+0.5, "column %s after compaction", sch.Field(c).Name)
	}
}

// TestDistinctCountsOldTable: a table written before zone maps (and so
// before sketches: testdata/format3) still opens, and has no distinct
// counts, so the optimizer falls back to its guesses.
func TestDistinctCountsOldTable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/format3")))
	st, err := store.NewLocal(dir)
	require.NoError(t, err)
	tb, err := table.Open(ctx, st, format1Opts)
	require.NoError(t, err)
	_, ok, err := tb.Manifest().DistinctCounts()
	require.NoError(t, err)
	require.False(t, ok)
}
