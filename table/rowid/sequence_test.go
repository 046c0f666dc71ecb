package rowid

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// genIDs builds id lists of several shapes; the plain slice is the reference.
func genIDs(r *rand.Rand, shape int) []uint64 {
	n := r.IntN(3000) + 1
	base := r.Uint64N(1 << 40)
	if r.IntN(8) == 0 {
		base = ^uint64(0) - uint64(4*n) // near the top of the id space
	}
	var ids []uint64
	switch shape {
	case 0: // contiguous
		for i := 0; i < n; i++ {
			ids = append(ids, base+uint64(i))
		}
	case 1: // sparse holes
		for i := 0; i < n; i++ {
			if r.IntN(50) != 0 || i == 0 {
				ids = append(ids, base+uint64(i))
			}
		}
	case 2: // dense deletions -> bitmap
		for i := 0; i < 2*n; i++ {
			if r.IntN(2) == 0 {
				ids = append(ids, base+uint64(i))
			}
		}
	case 3: // sorted sparse -> sorted array
		v := base
		for i := 0; i < n; i++ {
			v += 1 + r.Uint64N(1000)
			ids = append(ids, v)
		}
	case 4: // unsorted unique
		perm := r.Perm(n)
		for _, p := range perm {
			ids = append(ids, base+uint64(p)*3)
		}
	default: // mixture of runs in random order
		for len(ids) < n {
			start := r.Uint64N(1 << 50)
			l := r.IntN(100) + 1
			for j := 0; j < l; j++ {
				if r.IntN(4) != 0 {
					ids = append(ids, start+uint64(j))
				}
			}
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		// shuffle blocks to create overlapping/unsorted segments
		if len(ids) > 20 {
			cut := r.IntN(len(ids)-10) + 5
			ids = append(ids[cut:], ids[:cut]...)
		}
	}
	if len(ids) == 0 {
		ids = []uint64{base}
	}
	return ids
}

func checkSeq(t *testing.T, r *rand.Rand, s *Sequence, want []uint64) {
	t.Helper()
	if s.Len() != uint64(len(want)) {
		t.Fatalf("Len = %d, want %d", s.Len(), len(want))
	}
	if got := s.AppendTo(nil); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Fatalf("AppendTo mismatch (len %d vs %d)", len(got), len(want))
	}
	pos := make(map[uint64]uint64, len(want))
	for i := len(want) - 1; i >= 0; i-- {
		pos[want[i]] = uint64(i)
	}
	for i, v := range want {
		if g, ok := s.Get(uint64(i)); !ok || g != v {
			t.Fatalf("Get(%d) = %d,%v want %d", i, g, ok, v)
		}
		if p, ok := s.Position(v); !ok || p != pos[v] {
			t.Fatalf("Position(%d) = %d,%v want %d", v, p, ok, pos[v])
		}
	}
	if _, ok := s.Get(uint64(len(want))); ok {
		t.Fatal("Get past end ok")
	}
	for k := 0; k < 200; k++ {
		var id uint64
		if len(want) > 0 && k%2 == 0 {
			id = want[r.IntN(len(want))] + 1
		} else {
			id = r.Uint64()
		}
		p, ok := s.Position(id)
		wp, wok := pos[id]
		if ok != wok || (ok && p != wp) {
			t.Fatalf("Position(absent? %d) = %d,%v want %d,%v", id, p, ok, wp, wok)
		}
	}
	lo, hi, ok := s.MinMax()
	if ok != (len(want) > 0) {
		t.Fatalf("MinMax ok = %v", ok)
	}
	if ok && (lo != slices.Min(want) || hi != slices.Max(want)) {
		t.Fatalf("MinMax = %d,%d", lo, hi)
	}
	var segLen uint64
	size := 0
	for _, si := range s.Segments() {
		segLen += si.Len
		size += si.EncodedBytes
	}
	if segLen != s.Len() {
		t.Fatalf("segments hold %d ids, Len %d", segLen, s.Len())
	}
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != s.EncodedSize() {
		t.Fatalf("EncodedSize %d != len(Marshal) %d", s.EncodedSize(), len(b))
	}
	back, err := UnmarshalSequence(b)
	if err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if got := back.AppendTo(nil); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Fatal("round trip mismatch")
	}
	b2, _ := back.MarshalBinary()
	if !slices.Equal(b, b2) {
		t.Fatal("re-marshal differs")
	}
}

func TestSequenceProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	kinds := map[string]bool{}
	for iter := 0; iter < 120; iter++ {
		ids := genIDs(r, iter%6)
		s := NewSequence(ids)
		for _, si := range s.Segments() {
			kinds[si.Kind] = true
		}
		checkSeq(t, r, s, ids)

		// Slice.
		off := r.Uint64N(uint64(len(ids)) + 1)
		n := r.Uint64N(uint64(len(ids)) + 2)
		end := min(off+n, uint64(len(ids)))
		checkSeq(t, r, s.Slice(off, n), ids[off:max(off, end)])

		// Select (deletes).
		var offs []uint64
		var sel []uint64
		keep := r.IntN(4)
		for i := range ids {
			if r.IntN(4) <= keep {
				offs = append(offs, uint64(i))
				sel = append(sel, ids[i])
			}
		}
		checkSeq(t, r, s.Select(offs), sel)

		// Concat with a following range that continues the max.
		_, hi, _ := s.MinMax()
		if hi < ^uint64(0)-1000 {
			tail := NewRange(hi+1, hi+1+uint64(r.IntN(50)))
			c := Concat(s, tail, nil)
			checkSeq(t, r, c, tail.AppendTo(slices.Clone(ids)))
		}
	}
	for _, k := range []string{"Range", "RangeWithHoles", "RangeWithBitmap", "SortedArray", "Array"} {
		if !kinds[k] {
			t.Errorf("kind %s never produced", k)
		}
	}
}

func TestRangeMergeAndSize(t *testing.T) {
	var parts []*Sequence
	for f := uint64(0); f < 10; f++ {
		parts = append(parts, NewRange(f*100, (f+1)*100))
	}
	c := Concat(parts...)
	if got := c.Segments(); len(got) != 1 || got[0].Kind != "Range" || got[0].Len != 1000 {
		t.Fatalf("Concat did not merge ranges: %+v", got)
	}
	if sz := NewRange(0, 10000).EncodedSize(); sz > 20 {
		t.Fatalf("range encodes to %d bytes", sz)
	}
	if NewRange(5, 5).Len() != 0 || NewSequence(nil).Len() != 0 {
		t.Fatal("empty sequences")
	}
	var nilSeq *Sequence
	if nilSeq.Len() != 0 || nilSeq.AppendTo(nil) != nil {
		t.Fatal("nil sequence")
	}
	if _, ok := nilSeq.Position(3); ok {
		t.Fatal("nil Position")
	}
}

func TestSelectInvalid(t *testing.T) {
	s := NewRange(0, 10)
	for _, offs := range [][]uint64{{3, 3}, {5, 2}, {10}} {
		if s.Select(offs) != nil {
			t.Errorf("Select(%v) should be nil", offs)
		}
		if _, err := s.TrySelect(offs); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("TrySelect(%v) err = %v", offs, err)
		}
	}
}

func TestArrayPositionConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ids := genIDs(r, 4)
	s := NewSequence(ids)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, v := range ids {
				if p, ok := s.Position(v); !ok || p != uint64(i) {
					t.Errorf("Position(%d) = %d,%v", v, p, ok)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestDuplicatesDoNotBreak(t *testing.T) {
	ids := []uint64{5, 5, 7, 1, 5, 9, 9, 9, 10, 11, 12, 13, 14, 15, 16, 17}
	r := rand.New(rand.NewPCG(5, 6))
	checkSeq(t, r, NewSequence(ids), ids)
}

func TestAddress(t *testing.T) {
	a := NewAddress(12, 345)
	if a.Fragment() != 12 || a.Offset() != 345 || a.String() != "f12:345" || uint64(a) != 12<<32|345 {
		t.Fatalf("address %d %v", uint64(a), a)
	}
	m := NewAddress(^uint32(0), ^uint32(0))
	if uint64(m) != ^uint64(0) || m.String() != "f4294967295:4294967295" {
		t.Fatal(m)
	}
}

func TestBitmapGetLarge(t *testing.T) {
	// Many rank blocks; checks select across block boundaries.
	var ids []uint64
	r := rand.New(rand.NewPCG(7, 8))
	for i := uint64(0); i < 200000; i++ {
		if i == 0 || r.IntN(3) == 0 {
			ids = append(ids, i)
		}
	}
	s := NewSequence(ids)
	if k := s.Segments()[0].Kind; k != "RangeWithBitmap" {
		t.Fatalf("kind %s", k)
	}
	for i, v := range ids {
		if g, _ := s.Get(uint64(i)); g != v {
			t.Fatalf("Get(%d) = %d want %d", i, g, v)
		}
		if p, _ := s.Position(v); p != uint64(i) {
			t.Fatalf("Position(%d) = %d", v, p)
		}
	}
}

// TestSplitLongStretches: an ascending run of a few scattered ids and long
// consecutive stretches (what an update moves) encodes as ranges, not as
// one array or bitmap over the whole span.
func TestSplitLongStretches(t *testing.T) {
	ids := []uint64{7, 90}
	for x := uint64(500000); x < 510000; x++ {
		ids = append(ids, x)
	}
	ids = append(ids, 600001)
	for x := uint64(700000); x < 700500; x++ {
		ids = append(ids, x)
	}
	s := NewSequence(ids)
	if s.EncodedSize() > 100 {
		t.Fatalf("encoded in %d bytes: %+v", s.EncodedSize(), s.Segments())
	}
	for i, id := range ids {
		if got, ok := s.Get(uint64(i)); !ok || got != id {
			t.Fatalf("Get(%d) = %d, %v; want %d", i, got, ok, id)
		}
		if off, ok := s.Position(id); !ok || off != uint64(i) {
			t.Fatalf("Position(%d) = %d, %v; want %d", id, off, ok, i)
		}
	}
}
