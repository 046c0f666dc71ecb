package deletion

import (
	"encoding/binary"
	"errors"
	"github.com/stablerow/stablerow/internal/fuzzseed"
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

func randOffsets(r *rand.Rand) []uint32 {
	var out []uint32
	switch r.IntN(4) {
	case 0: // sparse across containers
		for i := r.IntN(200); i > 0; i-- {
			out = append(out, r.Uint32())
		}
	case 1: // dense within a container -> bitmap container
		for i := 0; i < 6000; i++ {
			out = append(out, uint32(r.IntN(20000)))
		}
	case 2: // runs
		s := uint32(r.IntN(1 << 20))
		for i := uint32(0); i < 3000; i++ {
			out = append(out, s+i)
		}
	default:
		for i := r.IntN(10); i > 0; i-- {
			out = append(out, uint32(r.IntN(100)))
		}
	}
	return out
}

func ref(offs ...[]uint32) []uint32 {
	var all []uint32
	for _, o := range offs {
		all = append(all, o...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

func TestVectorProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 200; iter++ {
		a, b := randOffsets(r), randOffsets(r)
		va, vb := New(a...), New(b...)
		want := ref(a)
		if got := va.Offsets(); !slices.Equal(got, want) {
			t.Fatalf("Offsets mismatch")
		}
		if va.Cardinality() != uint64(len(want)) {
			t.Fatalf("Cardinality %d want %d", va.Cardinality(), len(want))
		}
		set := map[uint32]bool{}
		for _, o := range want {
			set[o] = true
		}
		for k := 0; k < 100; k++ {
			o := r.Uint32N(1 << 21)
			if va.Contains(o) != set[o] {
				t.Fatalf("Contains(%d)", o)
			}
		}
		aBefore, bBefore := va.Offsets(), vb.Offsets()
		u := va.Union(vb)
		if !slices.Equal(u.Offsets(), ref(a, b)) {
			t.Fatal("Union mismatch")
		}
		if !slices.Equal(va.Offsets(), aBefore) || !slices.Equal(vb.Offsets(), bBefore) {
			t.Fatal("Union modified an input")
		}
		enc, err := u.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back, err := UnmarshalVector(enc)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back.Offsets(), u.Offsets()) || !back.Equal(u) {
			t.Fatal("round trip mismatch")
		}
	}
}

func TestNilVector(t *testing.T) {
	var v *Vector
	if v.Contains(0) || v.Cardinality() != 0 || v.Offsets() != nil || v.Bitmap() != nil || !v.IsEmpty() {
		t.Fatal("nil vector not empty")
	}
	if New() != nil || v.Union(nil) != nil {
		t.Fatal("empty constructors should give nil")
	}
	if got := v.Union(New(4)).Offsets(); !slices.Equal(got, []uint32{4}) {
		t.Fatal(got)
	}
	b, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalVector(b)
	if err != nil || back != nil {
		t.Fatalf("empty round trip: %v %v", back, err)
	}
}

func sampleVectors() []*Vector {
	r := rand.New(rand.NewPCG(5, 6))
	out := []*Vector{nil, New(0), New(1, 2, 3, 1000000)}
	for i := 0; i < 6; i++ {
		out = append(out, New(randOffsets(r)...))
	}
	// A vector with run containers and ≥ 4 containers (offset header).
	bm := roaring.New()
	for c := uint32(0); c < 5; c++ {
		bm.AddRange(uint64(c)<<16, uint64(c)<<16+100)
	}
	out = append(out, FromBitmap(bm))
	return out
}

func reseal(body []byte) []byte {
	return binary.LittleEndian.AppendUint32(slices.Clone(body), crc32.Checksum(body, castagnoli))
}

func TestUnmarshalCorrupt(t *testing.T) {
	for i, v := range sampleVectors() {
		b, _ := v.MarshalBinary()
		if len(b) > 2000 {
			continue
		}
		for cut := 0; cut < len(b); cut++ {
			if _, err := UnmarshalVector(b[:cut]); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("vec %d truncated at %d: %v", i, cut, err)
			}
		}
		for pos := 0; pos < len(b); pos++ {
			c := slices.Clone(b)
			c[pos] ^= 0x21
			if _, err := UnmarshalVector(c); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("vec %d flip %d: %v", i, pos, err)
			}
			// Resealed: must not panic; error must be ErrCorrupt.
			body := c[:len(c)-4]
			if got, err := UnmarshalVector(reseal(body)); err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err %v", err)
			} else if err == nil {
				_ = got.Offsets()
			}
		}
	}
	// Hostile payload: cookie claiming 65536 containers with tiny body.
	payload := []byte{0x3a, 0x30, 0, 0, 0, 0, 1, 0}
	body := append([]byte("SRDV\x01\x00\x00\x00"), binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))...)
	body = append(body, payload...)
	if _, err := UnmarshalVector(reseal(body)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("hostile: %v", err)
	}
}

func FuzzUnmarshalVector(f *testing.F) {
	for _, v := range sampleVectors() {
		b, _ := v.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkFuzz(t, b)
	})
}

// FuzzDecodePayload reseals the input so mutations reach the roaring checks.
func FuzzDecodePayload(f *testing.F) {
	for _, v := range sampleVectors() {
		b, _ := v.MarshalBinary()
		f.Add(b[:len(b)-4])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkFuzz(t, reseal(body))
	})
}

func checkFuzz(t *testing.T, b []byte) {
	v, err := UnmarshalVector(b)
	if err != nil {
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error not ErrCorrupt: %v", err)
		}
		return
	}
	offs := v.Offsets()
	if uint64(len(offs)) != v.Cardinality() || !slices.IsSorted(offs) {
		t.Fatal("inconsistent decoded vector")
	}
	re, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalVector(re)
	if err != nil || !back.Equal(v) {
		t.Fatalf("re-decode: %v", err)
	}
}

func TestWriteFuzzCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	for target, trim := range map[string]int{"FuzzUnmarshalVector": 0, "FuzzDecodePayload": 4} {
		var seeds [][]byte
		for _, v := range sampleVectors() {
			b, _ := v.MarshalBinary()
			seeds = append(seeds, b[:len(b)-trim])
		}
		fuzzseed.Write(t, target, seeds)
	}
}
