package table_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// TestScanRanges: a scan of row ranges reads exactly those rows of the
// full scan (deleted rows still left out), in the order of the ranges,
// including two ranges of one fragment; ranges that are not whole batches,
// of unknown fragments or combined with Fragments are refused.
func TestScanRanges(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	tb := dataFixture(t, store.NewMemory()) // fragments 0, 1 of 20 rows, batches of 8
	tb, _, err := tb.DeleteAddrs(ctx, []uint64{uint64(rowid.NewAddress(0, 9)), uint64(rowid.NewAddress(1, 17))})
	require.NoError(t, err)
	want := dataRows()
	live := func(lo, hi int) [][]any {
		var out [][]any
		for _, r := range want[lo:hi] {
			if r[0] != int64(9) && r[0] != int64(37) {
				out = append(out, r)
			}
		}
		return out
	}
	read := func(ranges []table.FragmentRange, cols []string) ([][]any, error) {
		s, err := tb.Scan(ctx, table.ScanOptions{Columns: cols, Ranges: ranges, Mem: mem})
		if err != nil {
			return nil, err
		}
		defer s.Release()
		var out [][]any
		for s.Next() {
			rows, err := exectest.Rows(s.RecordBatch())
			if err != nil {
				return nil, err
			}
			out = append(out, rows...)
		}
		return out, s.Err()
	}
	for _, tc := range []struct {
		ranges []table.FragmentRange
		want   [][]any
	}{
		{[]table.FragmentRange{{0, 0, 20}, {1, 0, 20}}, live(0, 40)},
		{[]table.FragmentRange{{0, 8, 16}}, live(8, 16)},
		{[]table.FragmentRange{{0, 16, 20}, {1, 0, 8}}, live(16, 28)},
		{[]table.FragmentRange{{1, 0, 8}, {1, 8, 20}, {0, 0, 8}}, append(live(20, 40), live(0, 8)...)},
		{[]table.FragmentRange{{0, 8, 8}}, nil},
		{[]table.FragmentRange{}, nil},
	} {
		got, err := read(tc.ranges, dataCols)
		require.NoError(t, err, "%v", tc.ranges)
		require.Equal(t, tc.want, got, "%v", tc.ranges)
		// System columns only: no data file read, same rows.
		ids, err := read(tc.ranges, []string{"_rowid"})
		require.NoError(t, err)
		require.Len(t, ids, len(tc.want))
		for i, r := range tc.want {
			require.Equal(t, r[3], ids[i][0])
		}
	}
	for _, bad := range [][]table.FragmentRange{{{0, 4, 8}}, {{0, 0, 12}}, {{0, 0, 24}}, {{0, 16, 8}}, {{7, 0, 8}}} {
		_, err := read(bad, dataCols)
		require.ErrorIs(t, err, table.ErrInvalidArgument, "%v", bad)
	}
	_, err = tb.Scan(ctx, table.ScanOptions{Ranges: []table.FragmentRange{{0, 0, 8}}, Fragments: []uint32{0}})
	require.ErrorIs(t, err, table.ErrInvalidArgument)
}
