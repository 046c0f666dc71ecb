package rowid

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

const (
	benchRows      = 1_000_000
	benchFragments = 100
)

// benchTable builds the per-fragment sequences of an append-only table of
// benchRows rows over benchFragments fragments, then deletes frac of the
// rows at random (as Lance's row_id_index bench does, via holes).
func benchTable(frac float64) []*Sequence {
	r := rand.New(rand.NewPCG(42, uint64(frac*1000)))
	per := uint64(benchRows / benchFragments)
	seqs := make([]*Sequence, benchFragments)
	offs := make([]uint64, 0, per)
	for f := range seqs {
		s := NewRange(uint64(f)*per, uint64(f+1)*per)
		if frac > 0 {
			offs = offs[:0]
			for i := uint64(0); i < per; i++ {
				if r.Float64() >= frac {
					offs = append(offs, i)
				}
			}
			s = s.Select(offs)
		}
		seqs[f] = s
	}
	return seqs
}

func BenchmarkEncodedSize(b *testing.B) {
	for _, frac := range []float64{0, 0.25, 0.5} {
		b.Run(fmt.Sprintf("del=%d%%", int(frac*100)), func(b *testing.B) {
			var total int
			for b.Loop() {
				total = 0
				for _, s := range benchTable(frac) {
					total += s.EncodedSize()
				}
			}
			b.ReportMetric(float64(total), "B_total")
			b.ReportMetric(float64(total)/benchRows, "B/row")
		})
	}
}

// kindSequences returns a ~100K-id sequence made of a single segment kind.
func kindSequences() map[string]*Sequence {
	r := rand.New(rand.NewPCG(9, 9))
	const n = 100_000
	var holes, dense, sparse, unsorted []uint64
	for i := uint64(0); len(holes) < n; i++ {
		if i == 0 || r.IntN(100) != 0 {
			holes = append(holes, i)
		}
	}
	for i := uint64(0); len(dense) < n; i++ {
		if i == 0 || r.IntN(2) == 0 {
			dense = append(dense, i)
		}
	}
	v := uint64(0)
	for len(sparse) < n {
		v += 1 + r.Uint64N(5000)
		sparse = append(sparse, v)
	}
	for _, p := range r.Perm(n) {
		unsorted = append(unsorted, uint64(p)*7)
	}
	return map[string]*Sequence{
		"Range":           NewRange(0, n),
		"RangeWithHoles":  NewSequence(holes),
		"RangeWithBitmap": NewSequence(dense),
		"SortedArray":     NewSequence(sparse),
		"Array":           NewSequence(unsorted),
	}
}

func BenchmarkLookup(b *testing.B) {
	seqs := kindSequences()
	for _, kind := range []string{"Range", "RangeWithHoles", "RangeWithBitmap", "SortedArray", "Array"} {
		s := seqs[kind]
		// A random permutation has a few ascending runs ≥ minSortedRun,
		// so Array may come with a handful of small sorted segments.
		if got := s.Segments()[0].Kind; got != kind || (kind != "Array" && len(s.Segments()) != 1) || len(s.Segments()) > 20 {
			b.Fatalf("%s: built %d segments, first %s", kind, len(s.Segments()), got)
		}
		r := rand.New(rand.NewPCG(1, 1))
		idx := make([]uint64, 4096)
		ids := make([]uint64, len(idx))
		for i := range idx {
			idx[i] = r.Uint64N(s.Len())
			ids[i], _ = s.Get(idx[i])
		}
		s.Position(ids[0]) // build Array's permutation outside the timer
		b.Run("Get/"+kind, func(b *testing.B) {
			var sink uint64
			i := 0
			for b.Loop() {
				v, _ := s.Get(idx[i&4095])
				sink += v
				i++
			}
			_ = sink
		})
		b.Run("Position/"+kind, func(b *testing.B) {
			var sink uint64
			i := 0
			for b.Loop() {
				v, _ := s.Position(ids[i&4095])
				sink += v
				i++
			}
			_ = sink
		})
	}
}
