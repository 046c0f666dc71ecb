package s3test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store/s3store"
)

// slowRanges delays every ranged GET a little, so GETs that are sent
// together are seen in flight together.
func slowRanges(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Range") != "" {
			time.Sleep(5 * time.Millisecond)
		}
		next.ServeHTTP(w, r)
	})
}

// TestTakeReadsAhead: a take on S3 opens its data file from the manifest
// (no HEAD), and fetches the spans of the batches it decodes together, in
// parallel up to the store's bound, one ranged GET per span here (merging
// and the block cache are off, so the count is exact): the tail, then one
// per batch. It used to HEAD each data file and read the batches one at a
// time.
func TestTakeReadsAhead(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	f := newFake(t, slowRanges)
	opts := table.Options{BatchRows: 64}
	st := f.open(t, f.uri("t"), s3store.Options{})
	tb, err := table.Create(ctx, st, schema, opts)
	require.NoError(t, err)
	tb = appendRows(t, tb, mem, 0, 64*100) // one fragment, 100 batches

	const parallel = 4
	st2 := f.open(t, f.uri("t"), s3store.Options{ReaderBlocks: -1, CoalesceGap: -1, Parallelism: parallel})
	tb2, err := table.Open(ctx, st2, opts)
	require.NoError(t, err)
	fr := tb2.Fragments()[0]
	var addrs []uint64
	for b := 99; b >= 0; b -= 2 { // 50 batches, asked in descending order
		addrs = append(addrs, uint64(rowid.NewAddress(fr.ID, uint32(b*64+b%64))))
	}
	f.count.reset()
	out, err := tb2.Take(ctx, addrs, nil, []string{"k", "s"}, mem)
	require.NoError(t, err)
	n := f.count.reset()
	t.Logf("take of %d rows in %d batches: %v", len(addrs), len(addrs), n)
	for i, a := range addrs {
		k := int64(rowid.Address(a).Offset())
		require.Equal(t, k, out.Column(0).(*array.Int64).Value(i))
		if w := rowOf(k); w == nil {
			require.True(t, out.Column(1).IsNull(i))
		} else {
			require.Equal(t, w, out.Column(1).(*array.String).Value(i))
		}
	}
	out.Release()
	require.Zero(t, n["HEAD"], "the manifest gives the data file's size and identity")
	require.Equal(t, 1+len(addrs), n["GET range"], "the tail, then one GET per batch")
	require.Equal(t, parallel, n["max in flight"], "the batches' spans are fetched in parallel, up to the bound")
}

// TestTakeChecksOnS3: a data file whose bytes changed under the manifest
// is ErrCorrupt on S3 too, whether the damaged span is read alone or in a
// read-ahead window.
func TestTakeChecksOnS3(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	f := newFake(t, nil)
	opts := table.Options{BatchRows: 64}
	st := f.open(t, f.uri("t"), s3store.Options{})
	tb, err := table.Create(ctx, st, schema, opts)
	require.NoError(t, err)
	tb = appendRows(t, tb, mem, 0, 64*10)
	fr := tb.Fragments()[0]
	b, err := st.Get(ctx, fr.DataFile)
	require.NoError(t, err)
	// Flip one byte in the middle of batch 5's span.
	spanStart, spanEnd := fr.File.Spans[4].End, fr.File.Spans[5].End
	b[(spanStart+spanEnd)/2] ^= 0x40
	require.NoError(t, st.Put(ctx, fr.DataFile, b))

	for _, addrs := range [][]uint64{
		{uint64(rowid.NewAddress(fr.ID, 5*64+1))}, // one span
		{uint64(rowid.NewAddress(fr.ID, 2*64)), uint64(rowid.NewAddress(fr.ID, 5*64+1)), uint64(rowid.NewAddress(fr.ID, 9*64))}, // a window
	} {
		st2 := f.open(t, f.uri("t"), s3store.Options{Cache: s3store.NewCache(1 << 20)})
		tb2, err := table.Open(ctx, st2, opts)
		require.NoError(t, err)
		_, err = tb2.Take(ctx, addrs, nil, []string{"k", "s"}, mem)
		require.ErrorIs(t, err, table.ErrCorrupt)
		require.ErrorIs(t, err, errkind.Corrupt)
	}
	// A data file cut short is Corrupt too, not an invalid argument.
	require.NoError(t, st.Put(ctx, fr.DataFile, b[:len(b)/2]))
	st3 := f.open(t, f.uri("t"), s3store.Options{ReaderBlocks: -1})
	tb3, err := table.Open(ctx, st3, opts)
	require.NoError(t, err)
	_, err = tb3.Take(ctx, []uint64{uint64(rowid.NewAddress(fr.ID, 1))}, nil, []string{"k"}, mem)
	require.ErrorIs(t, err, errkind.Corrupt)
}
