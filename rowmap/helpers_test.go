package rowmap

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

type fixture struct {
	dests   []uint32
	sources []SourceFragment
	live    []uint16 // labels of live rows
	ref     []Translation
	totals  []uint32
	file    []byte
}

// genFixture builds random sources and labels and the independent reference
// translation by replaying per-destination counters over all rows.
func genFixture(t testing.TB, seed uint64, fragRows []uint64, m int, delFrac float64, local int, blockSize int) *fixture {
	r := rand.New(rand.NewPCG(seed, 7))
	f := &fixture{totals: make([]uint32, m)}
	for i := range m {
		f.dests = append(f.dests, uint32(100+i))
	}
	row := 0
	var pool []int
	for _, n := range fragRows {
		var del *roaring.Bitmap
		if delFrac > 0 {
			del = roaring.New()
		}
		for off := uint64(0); off < n; off++ {
			if blockSize > 0 && row%blockSize == 0 && local > 0 {
				pool = pool[:0]
				for range local {
					pool = append(pool, r.IntN(m))
				}
			}
			row++
			if del != nil && r.Float64() < delFrac {
				del.Add(uint32(off))
				f.ref = append(f.ref, Translation{Deleted: true})
				continue
			}
			l := r.IntN(m)
			if local > 0 {
				l = pool[r.IntN(len(pool))]
			}
			f.live = append(f.live, uint16(l))
			f.ref = append(f.ref, Translation{Dest: uint16(l), Offset: f.totals[l]})
			f.totals[l]++
		}
		f.sources = append(f.sources, SourceFragment{PhysicalRows: n, Deleted: del})
	}
	w, err := NewWriter(f.dests, f.sources, WriterOptions{BlockSize: blockSize, ExpectedTotals: f.totals})
	if err != nil {
		t.Fatal(err)
	}
	// append in uneven chunks
	for i := 0; i < len(f.live); {
		j := min(len(f.live), i+1+r.IntN(5000))
		if err := w.Append(f.live[i:j]); err != nil {
			t.Fatal(err)
		}
		i = j
	}
	if f.file, err = w.Finish(); err != nil {
		t.Fatal(err)
	}
	return f
}

// writeMap writes a map of live's labels over srcs in one Append.
func writeMap(t testing.TB, dests []uint32, srcs []SourceFragment, opts WriterOptions, live []uint16) []byte {
	t.Helper()
	w, err := NewWriter(dests, srcs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(live); err != nil {
		t.Fatal(err)
	}
	file, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return file
}

// fileSourceOf writes file to a temporary file and opens it as a
// FileSource (closed when the test ends).
func fileSourceOf(t testing.TB, file []byte) Source {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.rowmap")
	if err := os.WriteFile(p, file, 0o644); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fh.Close() })
	src, err := FileSource(fh)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// translationOf is the Translation a sweep's label and offset stand for.
func translationOf(label, offset uint32) Translation {
	if label == NullLabel {
		return Translation{Deleted: true}
	}
	return Translation{Dest: uint16(label), Offset: offset}
}
