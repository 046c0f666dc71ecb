package fragreuse_test

import (
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/fragreuse"
)

// TestForIndex: ForIndex translates through the transitions newer than the
// index, whatever the index covers: an index covering every fragment and
// one covering half of them translate every address the same way (which
// translated addresses an index may answer for is package access's
// business: TestDerivedCoverage there).
func TestForIndex(t *testing.T) {
	f := newFixture(t, 9, table.Options{MaxRowsPerFragment: 100, BatchRows: 16})
	for range 6 {
		f.appendRows(100)
	}
	f.deleteSome(0.2)
	s := f.snapshot()
	ids := f.tb.FragmentIDs()
	half := ids[:3]
	var err error
	for name, frags := range map[string][]uint32{"all": ids, "half": half} {
		f.tb, err = f.tb.CommitIndex(f.ctx, &table.IndexMeta{Name: name, Column: table.RowID, Kind: "btree",
			Prefix: "_indices/" + name + "/", Fragments: roaring.BitmapOf(frags...), DatasetVersion: s.version}, false)
		require.NoError(t, err)
	}
	// Recluster the first two fragments (both covered by half), then
	// fragments 2..3 (one covered, one not), then compact everything.
	f.tb, err = f.tb.Recluster(f.ctx, "k", table.ReclusterOptions{Destinations: 3, Fragments: ids[:2], DeferIndexRemap: true, Mem: f.mem})
	require.NoError(t, err)
	f.tb, err = f.tb.Recluster(f.ctx, "s", table.ReclusterOptions{Destinations: 2, Fragments: ids[2:4], DeferIndexRemap: true, Mem: f.mem})
	require.NoError(t, err)
	f.deleteSome(0.1)
	f.tb, err = f.tb.Compact(f.ctx, table.CompactOptions{TargetRows: 250, MinDeletedFraction: 0.01, DeferIndexRemap: true, Mem: f.mem})
	require.NoError(t, err)
	f.checkContent()

	all, err := fragreuse.ForIndex(f.ctx, f.tb, f.tb.Index("all"))
	require.NoError(t, err)
	defer all.Close()
	f.checkWith(all, s)

	h, err := fragreuse.ForIndex(f.ctx, f.tb, f.tb.Index("half"))
	require.NoError(t, err)
	defer h.Close()
	out := make([]uint64, len(s.addrs))
	live := make([]bool, len(s.addrs))
	require.NoError(t, h.Translate(s.addrs, out, live))
	ref := make([]uint64, len(s.addrs))
	refLive := make([]bool, len(s.addrs))
	require.NoError(t, all.Translate(s.addrs, ref, refLive))
	require.Equal(t, refLive, live)
	require.Equal(t, ref, out)
}
