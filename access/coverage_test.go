package access

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/internal/arrowtest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

var schema = arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)

func appendRows(t testing.TB, tb *table.Table, from, n int) *table.Table {
	mem := arrowtest.Mem(t)
	var rows [][]any
	for i := from; i < from+n; i++ {
		rows = append(rows, []any{int64((i * 7919) % 1000)})
	}
	b, err := arrowtest.Batch(mem, schema, rows)
	require.NoError(t, err)
	defer b.Release()
	tb, err = tb.AppendBatches(context.Background(), []arrow.RecordBatch{b}, mem)
	require.NoError(t, err)
	return tb
}

// TestCoverageStates walks an index through the four states on a table
// whose history is known by construction: fragments 0-2 indexed at build;
// an append (3); deletes in 0; an update moving id 8 to a new fragment
// (4); a recluster of fragments 1 and 2 with the remap deferred (its
// destinations derive coverage through the history).
func TestCoverageStates(t *testing.T) {
	ctx := context.Background()
	mem := arrowtest.Mem(t)
	tb, err := table.Create(ctx, store.NewMemory(), schema, table.Options{MaxRowsPerFragment: 100})
	require.NoError(t, err)
	tb = appendRows(t, tb, 0, 300)
	l := New(mem)
	tb, err = l.CreateIndex(ctx, tb, "t", "rid", table.RowID)
	require.NoError(t, err)
	before := tb
	tb = appendRows(t, tb, 300, 50)
	tb, _, err = tb.DeleteRowIDs(ctx, []uint64{5})
	require.NoError(t, err)
	ub, err := arrowtest.Batch(mem, arrow.NewSchema([]arrow.Field{{Name: "_rowid", Type: arrow.PrimitiveTypes.Uint64}, schema.Field(0)}, nil), [][]any{{uint64(8), int64(-8)}})
	require.NoError(t, err)
	rdr, err := array.NewRecordReader(ub.Schema(), []arrow.RecordBatch{ub})
	require.NoError(t, err)
	tb, _, err = tb.Update(ctx, rdr, mem)
	rdr.Release()
	ub.Release()
	require.NoError(t, err)
	require.Equal(t, []uint32{0, 1, 2, 3, 4}, tb.FragmentIDs())
	tb, err = tb.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 2, Fragments: []uint32{1, 2}, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	dests := tb.FragmentIDs()[3:]
	require.Equal(t, []uint32{0, 3, 4}, tb.FragmentIDs()[:3])

	r, err := l.Resolver(ctx, tb, Find(tb, table.RowID, true))
	require.NoError(t, err)
	c := r.Coverage()
	require.Equal(t, Covered, c.Fragment(0))
	require.Equal(t, NotCovered, c.Fragment(3))
	require.Equal(t, NotCovered, c.Fragment(4))
	for _, d := range dests {
		require.Equal(t, Derived, c.Fragment(d))
	}
	require.Equal(t, []uint32{3, 4}, r.Uncovered())
	require.NotNil(t, r.Remapper())

	addr := func(f, o uint32) uint64 { return uint64(rowid.NewAddress(f, o)) }
	require.Equal(t, Covered, c.Addr(addr(0, 1)))
	require.Equal(t, Deleted, c.Addr(addr(0, 5)), "deleted")
	require.Equal(t, Deleted, c.Addr(addr(0, 8)), "updated away")
	require.Equal(t, NotCovered, c.Addr(addr(3, 0)))
	// Where the history sends id 150 (built at fragment 1) is Derived, and
	// the same address the table resolves.
	old, _ := before.Locate([]uint64{150})
	now, _ := tb.Locate([]uint64{150})
	out, live := make([]uint64, 1), make([]bool, 1)
	require.NoError(t, r.Remapper().Translate(old, out, live))
	require.True(t, live[0])
	require.Equal(t, now[0], out[0])
	require.Equal(t, Derived, c.Addr(out[0]))
	ok := make([]bool, 3)
	c.Valid([]uint64{addr(0, 1), addr(0, 5), out[0]}, ok)
	require.Equal(t, []bool{true, false, true}, ok)
}

// TestResolverCache: one resolver per index and snapshot version; a newer
// version evicts the older one; the cache is bounded.
func TestResolverCache(t *testing.T) {
	ctx := context.Background()
	mem := arrowtest.Mem(t)
	l := New(mem)
	var tables []*table.Table
	for range 3 {
		tb, err := table.Create(ctx, store.NewMemory(), schema, table.Options{MaxRowsPerFragment: 100})
		require.NoError(t, err)
		tb = appendRows(t, tb, 0, 10)
		tb, err = l.CreateIndex(ctx, tb, "t", "", table.RowID)
		require.NoError(t, err)
		tables = append(tables, tb)
	}
	tb := tables[0]
	m := Find(tb, table.RowID, true)
	require.NotNil(t, m)
	r1, err := l.Resolver(ctx, tb, m)
	require.NoError(t, err)
	r2, err := l.Resolver(ctx, tb, m)
	require.NoError(t, err)
	require.Same(t, r1, r2)
	tb2 := appendRows(t, tb, 10, 5)
	r3, err := l.Resolver(ctx, tb2, m)
	require.NoError(t, err)
	require.NotSame(t, r1, r3)
	require.Equal(t, []uint32{1}, r3.Uncovered())
	require.Equal(t, 1, l.Cached(), "the older version's resolver is evicted")

	l.maxResolvers = 2
	for _, x := range tables {
		_, err := l.Resolver(ctx, x, Find(x, table.RowID, true))
		require.NoError(t, err)
	}
	require.Equal(t, 2, l.Cached())
}
