package encoding

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/internal/fuzzseed"
)

// samePicked reports whether got[j] is want[pos[j]] for every j (floats
// by their bits), nulls included: the source array is the oracle.
func samePicked(want, got arrow.Array, pos []int32) bool {
	if got.Len() != len(pos) {
		return false
	}
	nulls := 0
	for j, i := range pos {
		if want.IsNull(int(i)) != got.IsNull(j) {
			return false
		}
		if got.IsNull(j) {
			nulls++
			continue
		}
		switch x := want.(type) {
		case *array.Float32:
			if math.Float32bits(x.Value(int(i))) != math.Float32bits(got.(*array.Float32).Value(j)) {
				return false
			}
		case *array.Float64:
			if math.Float64bits(x.Value(int(i))) != math.Float64bits(got.(*array.Float64).Value(j)) {
				return false
			}
		default:
			if x.ValueStr(int(i)) != got.ValueStr(j) {
				return false
			}
		}
	}
	return nulls == got.NullN()
}

// positionSets are the position lists a take hands DecodeRows: none, one,
// the first and last rows, random ones in any order with repeats, and
// every row.
func positionSets(rng *rand.Rand, rows int) [][]int32 {
	sets := [][]int32{{}}
	if rows == 0 {
		return sets
	}
	sets = append(sets, []int32{int32(rows - 1)}, []int32{0, int32(rows - 1), 0})
	random := make([]int32, 1+rng.IntN(2*rows))
	for j := range random {
		random[j] = int32(rng.IntN(rows))
	}
	all := make([]int32, rows)
	for i := range all {
		all[i] = int32(i)
	}
	return append(sets, random, all)
}

// TestDecodeRows encodes every type in every shape, with and without
// nulls, and checks DecodeRows at each position set against the source
// array's values, and that nothing stays allocated.
func TestDecodeRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, typ := range types {
		for _, shape := range shapes {
			for _, nulls := range []float64{0, 0.3} {
				rows := 500
				if shape == "no rows" {
					rows = 0
				}
				a := gen(rng, typ, shape, rows, nulls)
				chunk, err := Encode(nil, a)
				if err != nil {
					t.Fatal(err)
				}
				for _, pos := range positionSets(rng, rows) {
					mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
					got, err := DecodeRows(typ, rows, chunk, pos, mem)
					if err != nil {
						t.Fatalf("%s %s nulls %v (encoding %d): %v", typ, shape, nulls, chunk[0], err)
					}
					if !samePicked(a, got, pos) {
						t.Fatalf("%s %s nulls %v (encoding %d): rows %v:\n%v\nfrom\n%v", typ, shape, nulls, chunk[0], pos, got, a)
					}
					if err := validate(got); err != nil {
						t.Fatalf("%s %s: %v", typ, shape, err)
					}
					got.Release()
					mem.AssertSize(t, 0)
				}
				a.Release()
			}
		}
	}
}

// TestDecodeRowsRefuses: a position outside the chunk, a truncated chunk
// and a wrong row count are ErrCorrupt.
func TestDecodeRowsRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, typ := range types {
		a := gen(rng, typ, "narrow", 60, 0.2)
		chunk, err := Encode(nil, a)
		if err != nil {
			t.Fatal(err)
		}
		for _, pos := range [][]int32{{60}, {-1}, {3, 1 << 30}} {
			if _, err := DecodeRows(typ, 60, chunk, pos, mem); !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s: rows %v: %v", typ, pos, err)
			}
		}
		if _, err := DecodeRows(typ, 61, chunk, []int32{0}, mem); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: 61 rows of a 60-row chunk: %v", typ, err)
		}
		for n := range len(chunk) {
			if _, err := DecodeRows(typ, 60, chunk[:n], []int32{0, 59}, mem); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: truncated to %d of %d bytes: %v", typ, n, len(chunk), err)
			}
		}
		a.Release()
	}
}

// rowsInput is a FuzzDecodeRows input: a chunk input (fuzzInput), then
// positions as u16s.
func rowsSeeds(t testing.TB) [][]byte {
	rng := rand.New(rand.NewPCG(13, 14))
	var seeds [][]byte
	for _, s := range chunkSeeds(t) {
		rows := int(binary.LittleEndian.Uint16(s[1:]))
		var tail []byte
		for range 1 + rng.IntN(5) {
			tail = binary.LittleEndian.AppendUint16(tail, uint16(rng.IntN(rows+1)))
		}
		// u16 chunk length first, so the fuzzer can grow either part.
		b := append([]byte(nil), s[:3]...)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(s)-3))
		b = append(b, s[3:]...)
		seeds = append(seeds, append(b, tail...))
	}
	return seeds
}

// FuzzDecodeRows: any chunk and positions give ErrCorrupt or an array of
// one value per position, never a panic; where Decode accepts the chunk
// and the positions are in range, DecodeRows gives Decode's values at
// those positions (of a dictionary's codes DecodeRows checks only those
// it reads, so it may accept a chunk Decode refuses).
func FuzzDecodeRows(f *testing.F) {
	for _, s := range rowsSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 5 {
			return
		}
		typ := types[int(b[0])%len(types)]
		rows := int(binary.LittleEndian.Uint16(b[1:]))
		n := min(int(binary.LittleEndian.Uint16(b[3:])), len(b)-5)
		chunk, tail := b[5:5+n], b[5+n:]
		pos := make([]int32, len(tail)/2)
		inRange := true
		for j := range pos {
			pos[j] = int32(binary.LittleEndian.Uint16(tail[2*j:]))
			inRange = inRange && int(pos[j]) < rows
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		got, err := DecodeRows(typ, rows, chunk, pos, mem)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: %v", typ, err)
			}
		} else {
			defer got.Release()
			if got.Len() != len(pos) {
				t.Fatalf("%s: %d values for %d positions", typ, got.Len(), len(pos))
			}
			if err := validate(got); err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
		}
		whole, werr := Decode(typ, rows, chunk, mem)
		if werr != nil {
			return
		}
		defer whole.Release()
		if !inRange {
			return
		}
		if err != nil {
			t.Fatalf("%s: Decode accepts the chunk, DecodeRows refuses rows %v: %v", typ, pos, err)
		}
		if !samePicked(whole, got, pos) {
			t.Fatalf("%s: rows %v: DecodeRows %v, Decode %v", typ, pos, got, whole)
		}
	})
}

func TestDecodeRowsCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzDecodeRows", rowsSeeds(t))
}
