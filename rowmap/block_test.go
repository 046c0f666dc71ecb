package rowmap

import (
	"math/rand/v2"
	"testing"
)

// TestCountEqualPrefix checks the SWAR rank count against a per-value count
// for every width, prefix lengths across the vector tail, and wanted values
// that are frequent, rare and absent.
func TestCountEqualPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for w := uint(1); w <= 16; w++ {
		n := 700 + r.IntN(64)
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
			for _, pre := range []int{0, 1, 2, 57/int(w) + 1, n / 2, n - 1, n} {
				var ref uint32
				for _, v := range vals[:pre] {
					if v == want {
						ref++
					}
				}
				if got := countEqualPrefix(packed, w, pre, want); got != ref {
					t.Fatalf("w=%d want=%d prefix %d: got %d, reference %d", w, want, pre, got, ref)
				}
			}
		}
	}
}
