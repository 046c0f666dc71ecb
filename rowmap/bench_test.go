package rowmap

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
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

func BenchmarkSweep(b *testing.B) {
	uni, _ := benchMaps(b)
	var sink uint32
	for b.Loop() {
		_ = uni.rd.SweepBlocks(0, func(_ uint64, _, offsets []uint32) error {
			sink += offsets[len(offsets)-1]
			return nil
		})
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
	_ = sink
}

// BenchmarkBaselineWrite writes as many uint64s as the sweep translates: the
// memory-write bound to compare the sweep with.
func BenchmarkBaselineWrite(b *testing.B) {
	out := make([]uint64, BlockSize)
	for b.Loop() {
		for r := 0; r < benchRows; r += BlockSize {
			n := min(BlockSize, benchRows-r)
			for i := range out[:n] {
				out[i] = uint64(r + i)
			}
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
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
		_, r, _ := TranslateInBlock(labels, p)
		sink += r
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/rank")
	_ = sink
}

func BenchmarkPointTranslate(b *testing.B) {
	uni, _ := benchMaps(b)
	r := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		if _, _, _, err := uni.rd.Translate(r.Uint64N(benchRows)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/lookup")
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
