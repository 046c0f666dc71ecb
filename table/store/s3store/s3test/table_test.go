package s3test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store/s3store"
)

var schema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// rowOf is the reference model: row k's string, NULL for every 7th.
func rowOf(k int64) any {
	if k%7 == 0 {
		return nil
	}
	return fmt.Sprintf("row-%d", k)
}

func batch(t *testing.T, mem memory.Allocator, from, n int64) arrow.RecordBatch {
	return batchTB(t, mem, from, n)
}

func batchTB(t testing.TB, mem memory.Allocator, from, n int64) arrow.RecordBatch {
	vals := make([][]any, n)
	for i := range vals {
		k := from + int64(i)
		vals[i] = []any{k, rowOf(k)}
	}
	b, err := exectest.Batch(mem, schema, vals)
	require.NoError(t, err)
	return b
}

func appendRows(t *testing.T, tb *table.Table, mem memory.Allocator, from, n int64) *table.Table {
	b := batch(t, mem, from, n)
	defer b.Release()
	tb, err := tb.AppendBatches(context.Background(), []arrow.RecordBatch{b}, mem)
	require.NoError(t, err)
	return tb
}

// TestTableOnS3 drives the table layer on the S3 store: create, two
// appends, reopen at the latest version from a fresh store, scan every row
// and take a scattered set, checking each value against the model; then
// two writers commit concurrently and both appends survive (the lost
// PutIfAbsent race goes through the table's rebase path). It logs the GETs
// a take costs with and without the block cache.
func TestTableOnS3(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	f := target(t)
	opts := table.Options{BatchRows: 256, MaxRowsPerFragment: 4096}

	st := f.open(t, f.uri("db/t"), s3store.Options{})
	tb, err := table.Create(ctx, st, schema, opts)
	require.NoError(t, err)
	tb = appendRows(t, tb, mem, 0, 5000) // fragments of 4096 + 904 rows
	tb = appendRows(t, tb, mem, 5000, 3000)

	var takeGets sync.Map
	for _, mode := range []string{"exact", "reader-blocks", "shared-cache"} {
		t.Run(mode, func(t *testing.T) {
			so := s3store.Options{}
			switch mode {
			case "exact":
				so.ReaderBlocks = -1
			case "shared-cache":
				so.Cache = s3store.NewCache(64 << 20)
			}
			st2 := f.open(t, f.uri("db/t"), so)
			tb2, err := table.Open(ctx, st2, opts)
			require.NoError(t, err)
			require.Equal(t, tb.Version(), tb2.Version())
			require.EqualValues(t, 8000, tb2.LiveRows())

			// Take 20 scattered rows, twice (the second take shows the cache).
			var addrs []uint64
			var want []int64
			frags := tb2.Fragments()
			for i := range 20 {
				fr := frags[i%len(frags)]
				off := uint32((i * 397) % int(fr.PhysicalRows))
				addrs = append(addrs, uint64(rowid.NewAddress(fr.ID, off)))
			}
			gets := [2]int{}
			for round := range 2 {
				f.count.reset()
				out, err := tb2.Take(ctx, addrs, nil, []string{"k", "s", "_rowid"}, mem)
				require.NoError(t, err)
				n := f.count.reset()
				ks := out.Column(0).(*array.Int64)
				ss := out.Column(1).(*array.String)
				for i := range addrs {
					k := ks.Value(i)
					want = append(want, k)
					require.EqualValues(t, k, out.Column(2).(*array.Uint64).Value(i))
					if w := rowOf(k); w == nil {
						require.True(t, ss.IsNull(i))
					} else {
						require.Equal(t, w, ss.Value(i))
					}
				}
				out.Release()
				gets[round] = n["GET range"]
				require.Zero(t, n["HEAD"], "a data file opens from the manifest's size and content id: no HEAD")
				t.Logf("take of %d rows over %d fragments, round %d: %v", len(addrs), len(frags), round, n)
			}
			if mode == "shared-cache" {
				require.Zero(t, gets[1], "a repeated take is served by the cache")
			} else {
				require.Equal(t, gets[0], gets[1], "without a shared cache every take reads again")
			}
			takeGets.Store(mode, gets[0])
			// The taken rows are the rows at those addresses: k equals the
			// row id, and the fragments hold consecutive ids.
			for i, a := range addrs {
				ad := rowid.Address(a)
				var base int64
				for _, fr := range frags {
					if fr.ID == ad.Fragment() {
						break
					}
					base += int64(fr.PhysicalRows)
				}
				require.Equal(t, base+int64(ad.Offset()), want[i])
			}
			// Scan: every row, its row id and its address.
			sc, err := tb2.Scan(ctx, table.ScanOptions{Columns: []string{"k", "s", "_rowid"}, Mem: mem})
			require.NoError(t, err)
			seen := map[int64]bool{}
			for sc.Next() {
				b := sc.RecordBatch()
				ks := b.Column(0).(*array.Int64)
				ss := b.Column(1).(*array.String)
				ids := b.Column(2).(*array.Uint64)
				for i := range int(b.NumRows()) {
					k := ks.Value(i)
					require.EqualValues(t, k, ids.Value(i), "row ids are assigned in append order")
					if want := rowOf(k); want == nil {
						require.True(t, ss.IsNull(i))
					} else {
						require.Equal(t, want, ss.Value(i))
					}
					seen[k] = true
				}
			}
			require.NoError(t, sc.Err())
			sc.Release()
			require.Len(t, seen, 8000)
		})
	}

	exact, _ := takeGets.Load("exact")
	blocks, _ := takeGets.Load("reader-blocks")
	// The table reads exact ranges (a tail, then the spans of the batches
	// it decodes) through ReadRanges; the IPC reader reads only verified
	// bytes in memory. Block reads make no difference to it any more.
	require.Equal(t, exact.(int), blocks.(int), "the table's reads are exact ranges either way")

	// Two writers append concurrently from the same version: one loses the
	// PutIfAbsent race on S3 and rebases; no rows are lost.
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := batch(t, mem, 100_000*int64(w+1), 100)
			defer b.Release()
			_, err := tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
			require.NoError(t, err)
		}()
	}
	wg.Wait()
	latest, err := tb.Latest(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 8200, latest.LiveRows())
	require.Equal(t, tb.Version()+2, latest.Version())
}
