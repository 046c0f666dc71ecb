package fragreuse_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/stablerow/stablerow/rowmap"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/deletion"
	"github.com/stablerow/stablerow/table/fragreuse"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// benchOrdered is one compaction of frags fragments of rows rows each into
// fragments of 1M rows; delFrac of the rows are deleted (random offsets),
// or runs of 64 deleted rows when runs is set.
func benchOrdered(b *testing.B, frags, rows int, delFrac float64, runs bool) table.Transition {
	r := rand.New(rand.NewPCG(1, 2))
	tr := table.Transition{Kind: table.TransitionOrdered, Version: 2}
	var live uint64
	for i := range frags {
		bm := roaring.New()
		if runs {
			for o := 0; o+64 <= rows; o += 64 {
				if r.Float64() < delFrac {
					bm.AddRange(uint64(o), uint64(o+64))
				}
			}
		} else {
			for o := range rows {
				if r.Float64() < delFrac {
					bm.Add(uint32(o))
				}
			}
		}
		v := deletion.FromBitmap(bm)
		d, err := table.DeletionDigest(v)
		if err != nil {
			b.Fatal(err)
		}
		tr.Sources = append(tr.Sources, table.TransitionSource{Fragment: uint32(i), PhysicalRows: uint64(rows), Deletions: v, DeletionDigest: d})
		live += uint64(rows) - v.Cardinality()
	}
	for id := uint32(frags); live > 0; id++ {
		n := min(live, 1<<20)
		tr.Destinations = append(tr.Destinations, table.TransitionDest{Fragment: id, Rows: n})
		live -= n
	}
	return tr
}

// BenchmarkMemory100MCompacted reports the resident bytes of the history of
// one compaction of 100M rows (1000 fragments of 100K), by deletion shape:
// the cost is per fragment plus the compressed deletion vectors, never per
// row.
func BenchmarkMemory100MCompacted(b *testing.B) {
	for _, c := range []struct {
		name string
		del  float64
		runs bool
	}{{"no-deletions", 0, false}, {"1%-in-runs", 0.01, true}, {"10%-random", 0.1, false}} {
		b.Run(c.name, func(b *testing.B) {
			tr := benchOrdered(b, 1000, 100_000, c.del, c.runs)
			var n int
			for b.Loop() {
				h, err := fragreuse.Open(context.Background(), store.NewMemory(), []table.Transition{tr}, 0)
				if err != nil {
					b.Fatal(err)
				}
				n = h.MemoryBytes()
				h.Close()
			}
			b.ReportMetric(float64(n), "bytes")
			b.ReportMetric(float64(n)/1e8, "bytes/row")
		})
	}
}

// BenchmarkTranslateOrdered: random addresses through a 10M-row
// compaction with 10% deleted.
func BenchmarkTranslateOrdered(b *testing.B) {
	tr := benchOrdered(b, 100, 100_000, 0.1, false)
	h, err := fragreuse.Open(context.Background(), store.NewMemory(), []table.Transition{tr}, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		n      int
		sorted bool
	}{{10_000, false}, {1_000_000, false}, {1_000_000, true}} {
		n := c.n
		addrs := make([]uint64, n)
		for i := range addrs {
			addrs[i] = uint64(rowid.NewAddress(uint32(r.IntN(100)), uint32(r.IntN(100_000))))
		}
		name := fmt.Sprint(n)
		if c.sorted {
			slices.Sort(addrs)
			name += "-sorted"
		}
		out, live := make([]uint64, n), make([]bool, n)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := h.Translate(addrs, out, live); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/addr")
		})
	}
}

// BenchmarkTranslatePartition: a 4M-row recluster into 64 destinations,
// 10K random addresses (point lookups) and all rows in order (sweep).
func BenchmarkTranslatePartition(b *testing.B) {
	const frags, rows, m = 40, 100_000, 64
	r := rand.New(rand.NewPCG(5, 6))
	st := store.NewMemory()
	tr := table.Transition{Kind: table.TransitionStablePartition, Version: 2, RowMap: "_rowmaps/bench.rowmap"}
	var srcs []rowmap.SourceFragment
	var labels []uint16
	counts := make([]uint64, m)
	for i := range frags {
		bm := roaring.New()
		for o := range rows {
			if r.IntN(10) == 0 {
				bm.Add(uint32(o))
			}
		}
		v := deletion.FromBitmap(bm)
		d, _ := table.DeletionDigest(v)
		tr.Sources = append(tr.Sources, table.TransitionSource{Fragment: uint32(i), PhysicalRows: rows, Deletions: v, DeletionDigest: d})
		srcs = append(srcs, rowmap.SourceFragment{PhysicalRows: rows, Deleted: bm})
		for range rows - int(bm.GetCardinality()) {
			l := uint16(r.IntN(m))
			labels = append(labels, l)
			counts[l]++
		}
	}
	ids := make([]uint32, m)
	for j := range ids {
		ids[j] = uint32(1000 + j)
		tr.Destinations = append(tr.Destinations, table.TransitionDest{Fragment: ids[j], Rows: counts[j]})
	}
	w, err := rowmap.NewWriter(ids, srcs, rowmap.WriterOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Append(labels); err != nil {
		b.Fatal(err)
	}
	file, err := w.Finish()
	if err != nil {
		b.Fatal(err)
	}
	if err := st.Put(context.Background(), tr.RowMap, file); err != nil {
		b.Fatal(err)
	}
	h, err := fragreuse.Open(context.Background(), st, []table.Transition{tr}, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	var all []uint64
	for i := range frags {
		for o := range rows {
			all = append(all, uint64(rowid.NewAddress(uint32(i), uint32(o))))
		}
	}
	sparse := slices.Clone(all)
	r.Shuffle(len(sparse), func(i, j int) { sparse[i], sparse[j] = sparse[j], sparse[i] })
	dense := slices.Clone(sparse[:1_000_000]) // 1 in 4, unordered: the dense-request path
	sparse = sparse[:10_000]
	for name, addrs := range map[string][]uint64{"point-10K": sparse, "sweep-4M": all, "dense-1M-unordered": dense} {
		out, live := make([]uint64, len(addrs)), make([]bool, len(addrs))
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := h.Translate(addrs, out, live); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(addrs)), "ns/addr")
		})
	}
	b.ReportMetric(float64(h.MemoryBytes()), "history-bytes")
}
