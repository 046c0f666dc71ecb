package table_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// byteCountingStore counts the data file bytes read through range reads
// (it hides the memory store's Map, so every read is one).
type byteCountingStore struct {
	store.Store
	n atomic.Int64
}

func (c *byteCountingStore) Open(ctx context.Context, p string) (store.Reader, error) {
	r, err := c.Store.Open(ctx, p)
	if err != nil || !strings.HasPrefix(p, "data/") {
		return r, err
	}
	return &byteCountingReader{Reader: r, n: &c.n}, nil
}

func (c *byteCountingStore) Get(ctx context.Context, p string) ([]byte, error) {
	b, err := c.Store.Get(ctx, p)
	if strings.HasPrefix(p, "data/") {
		c.n.Add(int64(len(b)))
	}
	return b, err
}

func (c *byteCountingStore) GetRange(ctx context.Context, p string, off, n int64) ([]byte, error) {
	if strings.HasPrefix(p, "data/") {
		c.n.Add(n)
	}
	return c.Store.GetRange(ctx, p, off, n)
}

type byteCountingReader struct {
	store.Reader
	n *atomic.Int64
}

func (r *byteCountingReader) ReadAt(p []byte, off int64) (int, error) {
	k, err := r.Reader.ReadAt(p, off)
	r.n.Add(int64(k))
	return k, err
}

var clusteredSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "payload", Type: arrow.BinaryTypes.String},
}, nil)

// TestZoneSkipReadsOnlyNeededBatches: a range filter on a clustered
// (sorted) column reads from the store the file's tail and exactly the
// batches whose rows it needs, 2 of 64, counted as bytes the store
// served; the scan's own BytesRead says the same of the batches. Without
// the predicate every batch is read.
func TestZoneSkipReadsOnlyNeededBatches(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	cs := &byteCountingStore{Store: store.NewMemory()}
	const batch, batches = 100, 64
	tb, err := table.Create(ctx, cs, clusteredSchema, table.Options{BatchRows: batch})
	require.NoError(t, err)
	bld := array.NewRecordBuilder(mem, clusteredSchema)
	for i := range batch * batches {
		bld.Field(0).(*array.Int64Builder).Append(int64(i))
		bld.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("row %d %s", i, strings.Repeat("p", 40)))
	}
	b := bld.NewRecordBatch()
	bld.Release()
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	require.Len(t, tb.Fragments(), 1)
	f := tb.Fragments()[0]
	span := func(i int) int64 {
		start := uint64(0)
		if i > 0 {
			start = f.File.Spans[i-1].End
		}
		return int64(f.File.Spans[i].End - start)
	}
	tail := int64(f.File.Size - f.File.Spans[len(f.File.Spans)-1].End)

	scan := func(where []table.ZonePred) (rows int64, st table.ScanStats, read int64) {
		cs.n.Store(0)
		sc, err := tb.Scan(ctx, table.ScanOptions{Where: where, Mem: mem})
		require.NoError(t, err)
		defer sc.Release()
		for sc.Next() {
			rows += sc.RecordBatch().NumRows()
		}
		require.NoError(t, sc.Err())
		return rows, sc.Stats(), cs.n.Load()
	}
	// 1250..1349 lies in batches 12 and 13.
	where := []table.ZonePred{
		{Column: "k", Op: table.ZoneGe, Values: []any{int64(1250)}},
		{Column: "k", Op: table.ZoneLt, Values: []any{int64(1350)}},
	}
	rows, st, read := scan(where)
	require.Equal(t, int64(2*batch), rows)
	require.Equal(t, table.ScanStats{BatchesRead: 2, BatchesSkipped: batches - 2, BytesRead: span(12) + span(13)}, st)
	require.Equal(t, tail+span(12)+span(13), read, "the store served the tail and batches 12 and 13")

	rows, st, read = scan(nil)
	require.Equal(t, int64(batch*batches), rows)
	require.Equal(t, int64(batches), st.BatchesRead)
	require.Zero(t, st.BatchesSkipped)
	require.Equal(t, int64(f.File.Size), read, "a full scan reads the whole file")
	t.Logf("range: %d of %d bytes", tail+span(12)+span(13), f.File.Size)
}
