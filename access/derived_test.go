package access

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/internal/arrowtest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// TestDerivedCoverage: an index built over fragments 0-2 (3-5 appended
// after) is remapped through a recluster of 0 and 1 (only rows it covered:
// their destinations are Derived, and its old addresses translate to where
// the table says the rows are now) and a recluster of 2 and 3 (rows it
// covered mixed with rows it never saw: the index must not answer for
// those destinations; the fallback does). Oracle: the table's own row id
// sequences (Locate) and which fragments each rewrite read, known by
// construction.
func TestDerivedCoverage(t *testing.T) {
	ctx := context.Background()
	mem := arrowtest.Mem(t)
	tb, err := table.Create(ctx, store.NewMemory(), schema, table.Options{MaxRowsPerFragment: 100})
	require.NoError(t, err)
	tb = appendRows(t, tb, 0, 300)
	l := New(mem)
	tb, err = l.CreateIndex(ctx, tb, "t", "rid", table.RowID)
	require.NoError(t, err)
	before := tb
	tb = appendRows(t, tb, 300, 300)
	tb, _, err = tb.DeleteRowIDs(ctx, []uint64{7, 150, 250})
	require.NoError(t, err)
	require.Equal(t, []uint32{0, 1, 2, 3, 4, 5}, tb.FragmentIDs())
	tb, err = tb.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 3, Fragments: []uint32{0, 1}, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	clean := tb.FragmentIDs()[len(tb.FragmentIDs())-3:]
	tb, err = tb.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 2, Fragments: []uint32{2, 3}, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	mixed := tb.FragmentIDs()[len(tb.FragmentIDs())-2:]

	r, err := l.Resolver(ctx, tb, Find(tb, table.RowID, true))
	require.NoError(t, err)
	c := r.Coverage()
	for _, id := range clean {
		require.Equal(t, Derived, c.Fragment(id), "fragment %d: only covered rows", id)
	}
	for _, id := range append([]uint32{4, 5}, mixed...) {
		require.Equal(t, NotCovered, c.Fragment(id), "fragment %d", id)
	}
	require.Equal(t, []uint32{4, 5, mixed[0], mixed[1]}, r.Uncovered())

	ids := make([]uint64, 300)
	for i := range ids {
		ids[i] = uint64(i)
	}
	old, found := before.Locate(ids)
	require.NotContains(t, found, false)
	now, liveNow := tb.Locate(ids)
	out, live, ok := make([]uint64, len(ids)), make([]bool, len(ids)), make([]bool, len(ids))
	require.NoError(t, r.Remapper().Translate(old, out, live))
	r.Valid(out, ok)
	for i, id := range ids {
		answered := live[i] && ok[i]
		switch {
		case id == 7 || id == 150 || id == 250:
			require.False(t, answered, "id %d is deleted", id)
		case id < 200:
			require.True(t, answered, "id %d: rewritten with covered rows only", id)
			require.True(t, liveNow[i])
			require.Equal(t, now[i], out[i], "id %d", id)
		default:
			require.False(t, answered, "id %d: mixed with rows the index never saw", id)
		}
	}
}
