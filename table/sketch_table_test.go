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
	// The answer is kept per manifest (a second call merges nothing),
	// and each call's slice is the caller's own.
	first := append([]float64(nil), got...)
	got[0] = -1
	again, ok, err := tb.Manifest().DistinctCounts()
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, first, again)

	// Delete all but the 100 rows whose id is a multiple of 400 (k =
	// id % 1000: 5 values among them): the sketches still count the
	// deleted rows, so every count is capped at the live rows.
	ids := make([]uint64, 0, n-100)
	for _, f := range tb.Fragments() {
		for _, id := range f.RowIDs.AppendTo(nil) {
			if id%400 != 0 {
				ids = append(ids, id)
			}
		}
	}
	tb, _, err = tb.DeleteRowIDs(ctx, ids)
	require.NoError(t, err)
	got, ok, err = tb.Manifest().DistinctCounts()
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []float64{100, 100, 100}, got[:3])

	// ANALYZE rebuilds them over the live rows: k has 5 values left.
	an, err := tb.Analyze(ctx, mem)
	require.NoError(t, err)
	liveWant := []float64{100, 5, 100, 1, 0}
	got, ok, err = an.Manifest().DistinctCounts()
	require.NoError(t, err)
	require.True(t, ok)
	for c, w := range liveWant {
		require.InDelta(t, w, got[c], 0.03*w+0.5, "column %s after ANALYZE", sch.Field(c).Name)
	}

	// Compaction rewrites the live rows into new files, each with its
	// sketches: the counts are the live rows' as well.
	tb, err = tb.Compact(ctx, table.CompactOptions{})
	require.NoError(t, err)
	got, ok, err = tb.Manifest().DistinctCounts()
	require.NoError(t, err)
	require.True(t, ok)
	for c, w := range liveWant {
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

// TestAnalyze: ANALYZE of a table written before zone maps and sketches
// (testdata/format3: 100 rows, three deleted) commits one version whose
// fragments carry both, over the same data files, rows and deletions;
// its counts are those of the live rows; the rows read the same.
func TestAnalyze(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/format3")))
	st, err := store.NewLocal(dir)
	require.NoError(t, err)
	tb, err := table.Open(ctx, st, format1Opts)
	require.NoError(t, err)
	before, err := format1Scan(ctx, tb, format1Cols, mem)
	require.NoError(t, err)
	v := tb.Version()
	an, err := tb.Analyze(ctx, mem)
	require.NoError(t, err)
	require.Equal(t, v+1, an.Version())
	require.Equal(t, tb.LiveRows(), an.LiveRows())
	require.Len(t, an.Fragments(), len(tb.Fragments()))
	for i, f := range an.Fragments() {
		old := tb.Fragments()[i]
		require.Equal(t, old.DataFile, f.DataFile)
		require.Equal(t, old.Deletions.Cardinality(), f.Deletions.Cardinality())
		require.NotNil(t, f.File.Zones)
	}
	counts, ok, err := an.Manifest().DistinctCounts()
	require.NoError(t, err)
	require.True(t, ok)
	// Column 0 is distinct per row: the live rows' count (97). At so few
	// values the sketch's error is its registers' collisions: 97 values
	// set 93 of 4096 registers here, which the estimate reads as 94.1.
	require.InDelta(t, float64(an.LiveRows()), counts[0], 0.05*float64(an.LiveRows()))
	after, err := format1Scan(ctx, an, format1Cols, mem)
	require.NoError(t, err)
	require.Equal(t, before, after)
	// Reopened from the store, the committed version has them.
	re, err := table.Open(ctx, st, format1Opts)
	require.NoError(t, err)
	again, ok, err := re.Manifest().DistinctCounts()
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, counts, again)
}
