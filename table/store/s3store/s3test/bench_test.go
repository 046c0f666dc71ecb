package s3test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store/s3store"
)

// BenchmarkTakeS3 takes 100 random rows of a 200,000-row, one-fragment
// table (4096-row IPC batches) on gofakes3 and reports the ranged GETs and
// bytes each take costs, for exact reads, per-reader blocks and a warm
// shared cache.
//
//	cd table/store/s3store/s3test && go test -run XXX -bench TakeS3 -benchtime 20x .
func BenchmarkTakeS3(b *testing.B) {
	ctx := context.Background()
	f := newFake(b, nil)
	mem := memory.NewGoAllocator()
	st := f.open(b, f.uri("bench"), s3store.Options{})
	tb, err := table.Create(ctx, st, schema, table.Options{})
	require.NoError(b, err)
	const rows = 200_000
	var batches []arrow.RecordBatch
	for from := int64(0); from < rows; from += 50_000 {
		batches = append(batches, batchTB(b, mem, from, 50_000))
	}
	tb, err = tb.AppendBatches(ctx, batches, mem)
	require.NoError(b, err)
	for _, bt := range batches {
		bt.Release()
	}
	fr := tb.Fragments()[0]
	for _, mode := range []string{"exact", "reader-blocks", "shared-cache"} {
		b.Run(mode, func(b *testing.B) {
			so := s3store.Options{}
			switch mode {
			case "exact":
				so.ReaderBlocks = -1
			case "shared-cache":
				so.Cache = s3store.NewCache(256 << 20)
			}
			st := f.open(b, f.uri("bench"), so)
			tb, err := table.Open(ctx, st, table.Options{})
			require.NoError(b, err)
			rng := rand.New(rand.NewPCG(1, 2))
			addrs := make([]uint64, 100)
			take := func() {
				for i := range addrs {
					addrs[i] = uint64(rowid.NewAddress(fr.ID, uint32(rng.IntN(rows))))
				}
				out, err := tb.Take(ctx, addrs, nil, []string{"k", "s"}, mem)
				require.NoError(b, err)
				out.Release()
			}
			if mode == "shared-cache" {
				for range 50 { // warm
					take()
				}
			}
			f.count.reset()
			b.ResetTimer()
			for range b.N {
				take()
			}
			b.StopTimer()
			n := f.count.reset()
			b.ReportMetric(float64(n["GET range"])/float64(b.N), "GETs/op")
			b.ReportMetric(float64(n["bytes"])/float64(b.N), "bytes-fetched/op")
			b.ReportMetric(float64(n["HEAD"])/float64(b.N), "HEADs/op")
		})
	}
}
