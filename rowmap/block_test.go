package rowmap

import (
	"math/rand/v2"
	"testing"
)

// TestCountEqualPrefix checks the packed-block rank count (the AVX2 kernel
// where the machine has it, and the SWAR loop alone) against a per-value
// count, for every width, prefix lengths across the vector and SWAR tails,
// and wanted values that are frequent, rare and absent.
func TestCountEqualPrefix(t *testing.T) {
	defer func(u bool) { useAVX2Count = u }(useAVX2Count)
	for _, avx := range []bool{false, true} {
		if avx && !haveAVX2 {
			t.Log("no AVX2 here: countPackedAVX2 is not run")
			continue
		}
		useAVX2Count = avx
		testCountEqualPrefix(t)
	}
}

func testCountEqualPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for w := uint(1); w <= 16; w++ {
		n := 700 + r.IntN(64)
		if w%3 == 0 {
			n = 65536 - r.IntN(8)
		}
		vals := make([]uint32, n)
		pk := bitPacker{w: w}
		for i := range vals {
			vals[i] = r.Uint32N(min(uint32(1)<<w, 5)) // few distinct values: many matches
			if r.IntN(7) == 0 {
				vals[i] = r.Uint32N(uint32(1) << w)
			}
			pk.put(uint64(vals[i]))
		}
		packed := pk.finish()
		for _, want := range []uint32{0, 1, 4, uint32(1<<w - 1)} {
			if want >= 1<<w {
				continue // values are below 2^w by construction
			}
			for _, pre := range []int{0, 1, 2, 7, 8, 9, 16, 57/int(w) + 1, n / 2, n - 9, n - 8, n - 1, n} {
				var ref uint32
				for _, v := range vals[:pre] {
					if v == want {
						ref++
					}
				}
				if got := countEqualPrefix(packed, w, pre, want); got != ref {
					t.Fatalf("avx2 %v w=%d want=%d prefix %d: got %d, reference %d", useAVX2Count, w, want, pre, got, ref)
				}
			}
		}
	}
}
