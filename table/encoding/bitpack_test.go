package encoding

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// bitpackCounts cover no block, a block exactly, a block and a tail, and
// a chunk's worth with a tail (unpack's three paths: kernels, word loads,
// byte reads at the end).
var bitpackCounts = []int{0, 1, 7, 63, 64, 65, 100, 128, 129, 191, 4096 + 17}

// randomIn returns n values in [base, base + 2^width - 1].
func randomIn(rng *rand.Rand, n int, base uint64, width uint) []uint64 {
	vals := make([]uint64, n)
	for i := range vals {
		off := rng.Uint64()
		if width < 64 {
			off &= 1<<width - 1
		}
		// Hit the extremes of the width too: all ones and zero.
		switch i % 17 {
		case 3:
			off = ^uint64(0)
			if width < 64 {
				off = 1<<width - 1
			}
		case 5:
			off = 0
		}
		vals[i] = base + off
	}
	return vals
}

// TestUnpackEveryWidth packs random values at every width 0..64 and
// checks unpack's values against the values packed (and each bit field
// against slowBits, the byte-by-byte reader), for several element types
// and counts that end inside, at and past a 64-value block.
func TestUnpackEveryWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 3))
	for width := uint(0); width <= 64; width++ {
		for _, n := range bitpackCounts {
			base := rng.Uint64()
			if width == 64 {
				base = 0
			} else {
				base >>= width // no wrap past 2^64
			}
			vals := randomIn(rng, n, base, width)
			src := pack(nil, vals, base, width)
			if len(src) != packedLen(n, width) {
				t.Fatalf("width %d n %d: packed %d bytes, packedLen %d", width, n, len(src), packedLen(n, width))
			}
			for i, v := range vals {
				if got := base + slowBits(src, uint64(i)*uint64(width), width); width > 0 && got != v {
					t.Fatalf("width %d n %d: slowBits at %d = %d, packed %d", width, n, i, got, v)
				}
			}
			got64 := make([]uint64, n)
			unpack(got64, src, base, width, 0)
			gotI64 := make([]int64, n)
			unpack(gotI64, src, base, width, signBit)
			gotI32 := make([]int32, n)
			unpack(gotI32, src, base, width, signBit)
			gotU8 := make([]uint8, n)
			unpack(gotU8, src, base, width, 0)
			for i, v := range vals {
				if got64[i] != v {
					t.Fatalf("width %d n %d: uint64 at %d = %d, want %d", width, n, i, got64[i], v)
				}
				if gotI64[i] != int64(v^signBit) {
					t.Fatalf("width %d n %d: int64 at %d = %d, want %d", width, n, i, gotI64[i], int64(v^signBit))
				}
				if gotI32[i] != int32(v^signBit) {
					t.Fatalf("width %d n %d: int32 at %d = %d, want %d", width, n, i, gotI32[i], int32(v^signBit))
				}
				if gotU8[i] != uint8(v) {
					t.Fatalf("width %d n %d: uint8 at %d = %d, want %d", width, n, i, gotU8[i], uint8(v))
				}
			}
		}
	}
}

// TestUnpackDecimalEveryWidth checks unpackDecimal's 128-bit sums
// (decimal base + stream base + offset, carried into the high word)
// against math/big at every width.
func TestUnpackDecimalEveryWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 4))
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	for width := uint(0); width <= 64; width++ {
		for _, n := range bitpackCounts {
			base := rng.Uint64()
			if width == 64 {
				base = 0
			} else {
				base >>= width
			}
			// A low word near the top makes carries common.
			bl, bh := ^uint64(0)-rng.Uint64N(1<<40), rng.Uint64()
			vals := randomIn(rng, n, base, width)
			src := pack(nil, vals, base, width)
			nums := make([]uint64, 2*n)
			unpackDecimal(nums, src, base, width, bl, bh)
			for i, v := range vals {
				want := new(big.Int).SetUint64(bh)
				want.Mul(want, two64)
				want.Add(want, new(big.Int).SetUint64(bl))
				want.Add(want, new(big.Int).SetUint64(v))
				want.Mod(want, new(big.Int).Lsh(two64, 64)) // 128-bit wrap
				got := new(big.Int).SetUint64(nums[2*i+1])
				got.Mul(got, two64)
				got.Add(got, new(big.Int).SetUint64(nums[2*i]))
				if got.Cmp(want) != 0 {
					t.Fatalf("width %d n %d: value %d = %s, want %s", width, n, i, got, want)
				}
			}
		}
	}
}
