package rowmap

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

func naiveCountEqual(s []uint32, want uint32) uint32 {
	n := uint32(0)
	for _, v := range s {
		if v == want {
			n++
		}
	}
	return n
}

// TestCountEqual checks both counting paths against a plain loop over
// lengths around the kernel's 32-value stride, match densities from none to
// all, and the all-ones NullLabel.
func TestCountEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{0, 1, 3, 4, 5, 31, 32, 33, 63, 64, 65, 100, 1000, 65536, 65537} {
		for _, alpha := range []uint32{1, 2, 7, 1000, 1 << 31} {
			s := make([]uint32, n)
			for i := range s {
				s[i] = r.Uint32N(alpha)
				if alpha == 1<<31 && i%3 == 0 {
					s[i] = NullLabel
				}
			}
			for _, want := range []uint32{0, 1, alpha - 1, NullLabel} {
				exp := naiveCountEqual(s, want)
				if got := countEqualGo(s, want); got != exp {
					t.Fatalf("go: n %d alphabet %d want %d: %d, expected %d", n, alpha, want, got, exp)
				}
				if haveAVX2 && n > 0 {
					if got := uint32(countEqualAVX2(&s[0], n, want)); got != exp {
						t.Fatalf("avx2: n %d alphabet %d want %d: %d, expected %d", n, alpha, want, got, exp)
					}
				}
			}
		}
	}
}

// FuzzCountEqual compares both counting paths with a plain loop on
// arbitrary values: the bytes are read as little-endian uint32s.
func FuzzCountEqual(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0}, uint32(1))
	f.Add(make([]byte, 4*70), uint32(0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, NullLabel)
	f.Fuzz(func(t *testing.T, b []byte, want uint32) {
		s := make([]uint32, len(b)/4)
		for i := range s {
			s[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		exp := naiveCountEqual(s, want)
		if got := countEqualGo(s, want); got != exp {
			t.Fatalf("go: %d, expected %d", got, exp)
		}
		if got := countEqual(s, want); got != exp {
			t.Fatalf("countEqual: %d, expected %d", got, exp)
		}
	})
}
