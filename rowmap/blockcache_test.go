package rowmap

import (
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestBlockCacheAnswers: a named reader answers TranslateMany from the
// block cache exactly as the fixture's row-by-row replay does, cold and
// warm, over many batches of scattered rows (a deferred remap's take),
// with deletions, 300 destinations and 64K-row blocks, and under a budget
// so small that blocks are evicted between batches. The second pass must
// hit the cache, and the cache never holds more than its budget.
func TestBlockCacheAnswers(t *testing.T) {
	f := genFixture(t, 11, []uint64{70_000, 3, 200_000, 65_536}, 300, 0.1, 0, BlockSize)
	for _, c := range []struct {
		name   string
		budget int
	}{{"everything", DefaultBlockCacheBytes}, {"two blocks", 2 * (4*BlockSize + BlockSize/8 + 64)}, {"nothing", 0}} {
		t.Run(c.name, func(t *testing.T) {
			cache := NewBlockCache(c.budget)
			old := SetBlockCache(cache)
			rd, err := OpenNamed(BytesSource(f.file), "test.rowmap")
			SetBlockCache(old)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(5, 5))
			for pass := range 2 {
				for batch := range 20 {
					rows := make([]uint64, 2000)
					for i := range rows {
						rows[i] = r.Uint64N(uint64(len(f.ref)))
					}
					out := make([]Translation, len(rows))
					if err := rd.TranslateMany(rows, out); err != nil {
						t.Fatal(err)
					}
					for i, g := range rows {
						if out[i] != f.ref[g] {
							t.Fatalf("pass %d batch %d: row %d = %+v, want %+v", pass, batch, g, out[i], f.ref[g])
						}
					}
					if st := cache.Stats(); st.Bytes > c.budget {
						t.Fatalf("cache holds %d bytes over its budget %d", st.Bytes, c.budget)
					}
				}
			}
			st := cache.Stats()
			switch c.name {
			case "everything":
				if st.Blocks != rd.Counts().NumBlocks() || st.Misses != uint64(st.Blocks) {
					t.Fatalf("%+v: want each of the %d blocks translated once", st, rd.Counts().NumBlocks())
				}
			case "two blocks":
				if st.Blocks > 2 {
					t.Fatalf("%+v: over two blocks held", st)
				}
			case "nothing":
				if st.Blocks != 0 || st.Hits != 0 {
					t.Fatalf("%+v: an empty budget held blocks", st)
				}
			}
		})
	}
}

// TestBlockCacheReadersApart: two row maps with the same name, the same
// destinations and the same counts but rows in another order (so the same
// tail) never answer from each other's blocks.
func TestBlockCacheReadersApart(t *testing.T) {
	cache := NewBlockCache(DefaultBlockCacheBytes)
	old := SetBlockCache(cache)
	defer SetBlockCache(old)
	dests := []uint32{1, 2}
	srcs := []SourceFragment{{PhysicalRows: 100}}
	a, b := make([]uint16, 100), make([]uint16, 100)
	for i := range a {
		a[i] = uint16(i % 2)
		b[i] = uint16(1 - i%2)
	}
	rows := make([]uint64, 100)
	for i := range rows {
		rows[i] = uint64(i)
	}
	for _, live := range [][]uint16{a, b} {
		rd, err := OpenNamed(BytesSource(writeMap(t, dests, srcs, WriterOptions{}, live)), "same.rowmap")
		if err != nil {
			t.Fatal(err)
		}
		out := make([]Translation, len(rows))
		if err := rd.TranslateMany(rows, out); err != nil {
			t.Fatal(err)
		}
		for i, tr := range out {
			if tr.Dest != live[i] || tr.Offset != uint32(i/2) {
				t.Fatalf("row %d: %+v, want dest %d offset %d", i, tr, live[i], i/2)
			}
		}
	}
}

// TestBlockCacheSentinel: the one live row whose packed word equals a
// deleted row's (label 65,535, rank 65,535: the last row of a block sent
// whole to the last of 65,536 destinations) reads as live from the cache,
// and a deleted row of the next block as deleted.
func TestBlockCacheSentinel(t *testing.T) {
	cache := NewBlockCache(DefaultBlockCacheBytes)
	old := SetBlockCache(cache)
	defer SetBlockCache(old)
	dests := make([]uint32, MaxDestinations)
	for i := range dests {
		dests[i] = uint32(i)
	}
	live := make([]uint16, BlockSize+9)
	for i := range live {
		live[i] = MaxDestinations - 1
	}
	srcs := []SourceFragment{{PhysicalRows: BlockSize}, {PhysicalRows: 10, Deleted: roaring.BitmapOf(3)}}
	rd, err := OpenNamed(BytesSource(writeMap(t, dests, srcs, WriterOptions{}, live)), "sentinel.rowmap")
	if err != nil {
		t.Fatal(err)
	}
	rows := []uint64{BlockSize - 1, BlockSize - 2, BlockSize + 3, BlockSize + 4, 0, 1, 2, 3, 4, BlockSize, BlockSize + 1}
	want := []Translation{{Dest: MaxDestinations - 1, Offset: BlockSize - 1}, {Dest: MaxDestinations - 1, Offset: BlockSize - 2},
		{Deleted: true}, {Dest: MaxDestinations - 1, Offset: BlockSize + 3}, {Dest: MaxDestinations - 1}, {Dest: MaxDestinations - 1, Offset: 1},
		{Dest: MaxDestinations - 1, Offset: 2}, {Dest: MaxDestinations - 1, Offset: 3}, {Dest: MaxDestinations - 1, Offset: 4},
		{Dest: MaxDestinations - 1, Offset: BlockSize}, {Dest: MaxDestinations - 1, Offset: BlockSize + 1}}
	for pass := range 2 { // the second from the cache
		out := make([]Translation, len(rows))
		if err := rd.TranslateMany(rows, out); err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			if out[i] != want[i] {
				t.Fatalf("pass %d: row %d = %+v, want %+v", pass, rows[i], out[i], want[i])
			}
		}
	}
	if st := cache.Stats(); st.Hits == 0 {
		t.Fatalf("%+v: the second pass did not read the cache", st)
	}
}

// BenchmarkTranslateManyCached: 10K scattered rows of a 2M-row map (a
// deferred remap's batch), every block already in the cache: the cost
// left per row once no block is translated.
func BenchmarkTranslateManyCached(b *testing.B) {
	f := genFixture(b, 3, []uint64{2_000_000}, 10, 0.05, 0, BlockSize)
	cache := NewBlockCache(DefaultBlockCacheBytes)
	old := SetBlockCache(cache)
	rd, err := OpenNamed(BytesSource(f.file), "bench.rowmap")
	SetBlockCache(old)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	rows := make([]uint64, 10_000)
	for i := range rows {
		rows[i] = r.Uint64N(uint64(len(f.ref)))
	}
	out := make([]Translation, len(rows))
	if err := rd.TranslateMany(rows, out); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := rd.TranslateMany(rows, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)), "ns/row")
}
