package rowmap

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// The seed's setup: 2M rows, 1000 destinations, ~1/8 deleted, written to a
// temp file on the local FS and read through os.File.
const (
	benchRows  = 2_000_000
	benchDests = 1000
)

type benchMap struct {
	f    *fixture
	rd   *Reader
	file *os.File
}

var (
	benchOnce sync.Once
	benchUni  *benchMap
	benchLoc  *benchMap
)

func openBench(b *testing.B, f *fixture) *benchMap {
	p := filepath.Join(os.TempDir(), "rowmap-bench-"+string(rune('a'+len(f.live)%26))+".rowmap")
	if err := os.WriteFile(p, f.file, 0o644); err != nil {
		b.Fatal(err)
	}
	fh, err := os.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	os.Remove(p)
	src, err := FileSource(fh)
	if err != nil {
		b.Fatal(err)
	}
	rd, err := Open(src)
	if err != nil {
		b.Fatal(err)
	}
	return &benchMap{f: f, rd: rd, file: fh}
}

func benchMaps(b *testing.B) (uni, loc *benchMap) {
	benchOnce.Do(func() {
		benchUni = openBench(b, genFixture(b, 42, []uint64{benchRows / 2, benchRows / 2}, benchDests, 0.125, 0, BlockSize))
		benchLoc = openBench(b, genFixture(b, 43, []uint64{benchRows / 2, benchRows / 2}, benchDests, 0.125, 16, BlockSize))
	})
	return benchUni, benchLoc
}

func BenchmarkSize(b *testing.B) {
	uni, loc := benchMaps(b)
	for b.Loop() {
	}
	b.ReportMetric(bitsPerRow(uni.rd.src.Size(), benchRows), "bits/row-uniform")
	b.ReportMetric(bitsPerRow(loc.rd.src.Size(), benchRows), "bits/row-locality")
}

// sweepRuns is how many timed passes one benchmark op makes. The rates
// reported are medians over all passes, so that make bench's -benchtime 3x
// still gives a steady figure on a shared machine; sweep and write-bound
// passes alternate so that their ratio sees the same machine.
const sweepRuns = 15

func sweepOnce(b *testing.B, rd *Reader, sink *uint32) {
	err := rd.SweepBlocks(0, func(_ uint64, _, offsets []uint32) error {
		*sink += offsets[len(offsets)-1]
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// writeBound writes as many uint64s as the sweep translates rows, a block
// at a time: the memory-write bound to compare the sweep with.
func writeBound(out []uint64) {
	for r := 0; r < benchRows; r += BlockSize {
		n := min(BlockSize, benchRows-r)
		for i := range out[:n] {
			out[i] = uint64(r + i)
		}
	}
}

// medianRate is the rate, in millions of rows per second, of the median pass.
func medianRate(d []time.Duration) float64 {
	slices.Sort(d)
	return float64(benchRows) / d[len(d)/2].Seconds() / 1e6
}

// BenchmarkSweep sweeps the uniform map from block 0 on one goroutine,
// through an os.File (blocks copied out with pread) and from memory (blocks
// read in place, as from a mapped file).
func BenchmarkSweep(b *testing.B) {
	uni, _ := benchMaps(b)
	mem, err := Open(BytesSource(uni.f.file))
	if err != nil {
		b.Fatal(err)
	}
	out := make([]uint64, BlockSize)
	for _, c := range []struct {
		name string
		rd   *Reader
	}{{"file", uni.rd}, {"memory", mem}} {
		b.Run(c.name, func(b *testing.B) {
			var sink uint32
			var sweep, write []time.Duration
			for b.Loop() {
				for range sweepRuns {
					t0 := time.Now()
					sweepOnce(b, c.rd, &sink)
					sweep = append(sweep, time.Since(t0))
					t0 = time.Now()
					writeBound(out)
					write = append(write, time.Since(t0))
				}
			}
			s, w := medianRate(sweep), medianRate(write)
			b.ReportMetric(s, "Mrows/s")
			b.ReportMetric(w, "write-bound-Mrows/s")
			b.ReportMetric(s/w, "of-write-bound")
			_ = sink
		})
	}
}

func BenchmarkRankFullBlock(b *testing.B) {
	uni, _ := benchMaps(b)
	labels, err := uni.rd.DecodeBlock(0)
	if err != nil {
		b.Fatal(err)
	}
	p := len(labels) - 1
	for labels[p] == NullLabel {
		p--
	}
	var sink uint32
	for b.Loop() {
		for range innerRuns {
			_, r, _ := TranslateInBlock(labels, p)
			sink += r
		}
	}
	b.ReportMetric(perRun(b), "µs/rank")
	_ = sink
}

// innerRuns is how many lookups or ranks one op of the per-call benchmarks
// makes, so that make bench's -benchtime 3x averages over enough calls to
// leave first-touch costs out.
const innerRuns = 1000

// perRun is the mean µs per inner run.
func perRun(b *testing.B) float64 {
	return float64(b.Elapsed().Nanoseconds()) / 1e3 / float64(b.N*innerRuns)
}

// BenchmarkRankPackedBlock ranks the last live row of a block held in
// memory in its packed form, as a point lookup does after the block read:
// the in-memory point-lookup cost the seed's 3.8 µs measures.
func BenchmarkRankPackedBlock(b *testing.B) {
	uni, _ := benchMaps(b)
	rd, err := Open(BytesSource(uni.f.file))
	if err != nil {
		b.Fatal(err)
	}
	var sc sweepScratch
	defer sc.release()
	pb, err := rd.readParsed(0, &sc)
	if err != nil {
		b.Fatal(err)
	}
	labels, err := rd.DecodeBlock(0)
	if err != nil {
		b.Fatal(err)
	}
	p := len(labels) - 1
	for labels[p] == NullLabel {
		p--
	}
	_, want, _ := TranslateInBlock(labels, p)
	var sink uint32
	for b.Loop() {
		for range innerRuns {
			_, r, _, err := rankEncoded(pb, p)
			if err != nil || r != want {
				b.Fatalf("rank %d, want %d (%v)", r, want, err)
			}
			sink += r
		}
	}
	b.ReportMetric(perRun(b), "µs/rank")
	_ = sink
}

func BenchmarkPointTranslate(b *testing.B) {
	uni, _ := benchMaps(b)
	r := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		for range innerRuns {
			if _, _, _, err := uni.rd.Translate(r.Uint64N(benchRows)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(perRun(b), "µs/lookup")
}

func BenchmarkBatch10K(b *testing.B) {
	uni, _ := benchMaps(b)
	r := rand.New(rand.NewPCG(2, 2))
	rows := make([]uint64, 10_000)
	for i := range rows {
		rows[i] = r.Uint64N(benchRows)
	}
	out := make([]Translation, len(rows))
	for b.Loop() {
		if err := uni.rd.TranslateMany(rows, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrite writes the seed's uniform map (2M rows, 1000
// destinations, ~1/8 deleted) from its labels: the cost a rewrite pays to
// record its row map.
func BenchmarkWrite(b *testing.B) {
	uni, _ := benchMaps(b)
	f := uni.f
	for b.Loop() {
		w, err := NewWriter(f.dests, f.sources, WriterOptions{ExpectedTotals: f.totals})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Append(f.live); err != nil {
			b.Fatal(err)
		}
		if _, err := w.Finish(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}
