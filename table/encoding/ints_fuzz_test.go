package encoding

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stablerow/stablerow/internal/fuzzseed"
)

// intStreamSeeds are integer streams of both kinds: packed at widths 0
// to 64 and run-length, with the count (u16) first.
func intStreamSeeds() [][]byte {
	rng := rand.New(rand.NewPCG(7, 8))
	var seeds [][]byte
	for _, width := range []uint{0, 1, 7, 13, 32, 57, 64} {
		vals := make([]uint64, 50)
		for i := range vals {
			vals[i] = 1000 + rng.Uint64()>>(64-width)
			if width == 0 {
				vals[i] = 1000
			}
		}
		seeds = append(seeds, binary.LittleEndian.AppendUint16(nil, uint16(len(vals))))
		seeds[len(seeds)-1] = appendInts(seeds[len(seeds)-1], vals, false)
	}
	runs := make([]uint64, 90)
	for i := range runs {
		runs[i] = uint64(i / 30 * 5)
	}
	seeds = append(seeds, appendRuns(binary.LittleEndian.AppendUint16(nil, uint16(len(runs))), runs, 3))
	return seeds
}

// FuzzDecodeIntStream: any bytes as an integer stream of any count decode
// to that many values or to ErrCorrupt (never a panic), and a stream
// that decodes re-encodes to one that decodes to the same values.
func FuzzDecodeIntStream(f *testing.F) {
	for _, s := range intStreamSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 2 {
			return
		}
		n := int(binary.LittleEndian.Uint16(b))
		r := &reader{b: b[2:]}
		got := make([]uint64, n)
		ints(r, got, true, 0)
		if r.err != nil {
			if !errors.Is(r.err, ErrCorrupt) {
				t.Fatal(r.err)
			}
			return
		}
		again := make([]uint64, n)
		r = &reader{b: appendInts(nil, got, true)}
		ints(r, again, true, 0)
		if r.err != nil || len(r.b) != 0 {
			t.Fatalf("re-encoded stream: %v, %d bytes left", r.err, len(r.b))
		}
		for i := range got {
			if got[i] != again[i] {
				t.Fatalf("value %d: %d re-encoded as %d", i, got[i], again[i])
			}
		}
	})
}

func TestDecodeIntStreamCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzDecodeIntStream", intStreamSeeds())
}
