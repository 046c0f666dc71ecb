package encoding

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/internal/fuzzseed"
)

// fuzzInput is a fuzz input: the index of a type in types, the row count
// (u16) and the chunk.
func fuzzInput(typ int, rows int, chunk []byte) []byte {
	b := []byte{byte(typ)}
	b = binary.LittleEndian.AppendUint16(b, uint16(rows))
	return append(b, chunk...)
}

// chunkSeeds are chunks of every type in every shape, with nulls and
// without: each encoding and integer stream kind appears.
func chunkSeeds(t testing.TB) [][]byte {
	rng := rand.New(rand.NewPCG(5, 6))
	var seeds [][]byte
	for ti, typ := range types {
		for _, shape := range shapes {
			a := gen(rng, typ, shape, 40, 0.25)
			chunk, err := Encode(nil, a)
			if err != nil {
				t.Fatal(err)
			}
			seeds = append(seeds, fuzzInput(ti, a.Len(), chunk))
			a.Release()
		}
	}
	return seeds
}

// FuzzDecodeChunk: any bytes as a chunk of any type and row count decode
// to an array of that many rows whose offsets stay in its values, or to
// ErrCorrupt; never a panic, and nothing left allocated.
func FuzzDecodeChunk(f *testing.F) {
	for _, s := range chunkSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 3 {
			return
		}
		typ := types[int(b[0])%len(types)]
		rows := int(binary.LittleEndian.Uint16(b[1:]))
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		a, err := Decode(typ, rows, b[3:], mem)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: %v", typ, err)
			}
			return
		}
		defer a.Release()
		if a.Len() != rows {
			t.Fatalf("%s: %d rows, asked for %d", typ, a.Len(), rows)
		}
		if err := validate(a); err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		// Encoding what was decoded and decoding again gives the same
		// values: whatever the input, the decoded array is a real one.
		c, err := Encode(nil, a)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Decode(typ, rows, c, mem)
		if err != nil {
			t.Fatalf("%s: re-encoded: %v", typ, err)
		}
		defer again.Release()
		if !sameBits(a, again) {
			t.Fatalf("%s: re-encoding changed the values", typ)
		}
	})
}

func TestDecodeChunkCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzDecodeChunk", chunkSeeds(t))
}
