package table

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestKeyRangesFastPath: labelling uint64 keys by plain bounds (the
// integer fast path) agrees with the generic keyImage comparison, at the
// edges of the domain too.
func TestKeyRangesFastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for range 50 {
		var bounds []KeyBound
		next := uint64(r.IntN(3))
		for range 1 + r.IntN(6) {
			bounds = append(bounds, KeyBound{U: next})
			next += 1 + uint64(r.IntN(20))
		}
		var upper *KeyBound
		if r.IntN(2) == 0 {
			upper = &KeyBound{U: next}
		}
		if r.IntN(5) == 0 {
			bounds[len(bounds)-1].U, upper = math.MaxUint64, nil
		}
		kr := newKeyRanges(0, bounds, upper)
		if kr.ubounds == nil {
			t.Fatal("numeric bounds without the fast path")
		}
		b := array.NewUint64Builder(mem)
		for range 200 {
			switch r.IntN(10) {
			case 0:
				b.Append(math.MaxUint64)
			case 1:
				b.Append(0)
			default:
				b.Append(uint64(r.IntN(int(min(next, 1<<20)) + 10)))
			}
		}
		col := b.NewArray()
		b.Release()
		got, err := kr.label(col, nil)
		if err != nil {
			t.Fatal(err)
		}
		img, _ := keyImages(col)
		for i := range col.Len() {
			if want := int32(kr.local(img(i))); got[i] != want {
				t.Fatalf("key %d: fast path %d, generic %d (bounds %v, upper %v)", col.(*array.Uint64).Value(i), got[i], want, bounds, upper)
			}
		}
		col.Release()
	}
}
