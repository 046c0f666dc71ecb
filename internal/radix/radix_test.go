package radix

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortKeys compares SortKeys with a stable comparison sort on the same
// bit range, over ranges that need one to six passes, ranges reaching bit
// 64, inputs where some or every digit is shared (skipped passes), and
// keys whose bits outside the range must ride along unchanged.
func TestSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{0, 1, 2, 100, 10_000} {
		for _, rg := range [][2]uint{{0, 64}, {20, 44}, {0, 1}, {5, 16}, {40, 64}, {3, 3}, {10, 70}, {0, 61}, {7, 30}} {
			for _, spread := range []uint64{1, 4, 1 << 20, 1<<64 - 1} {
				lo, hi := rg[0], min(rg[1], 64)
				m := fieldMask(lo, hi)
				keys := make([]uint64, n)
				for i := range keys {
					// random bits outside the range, a spread-limited field inside
					keys[i] = r.Uint64()&^m | r.Uint64N(spread)<<lo&m
				}
				field := func(k uint64) uint64 { return k & m }
				want := slices.Clone(keys)
				slices.SortStableFunc(want, func(a, b uint64) int { return cmp.Compare(field(a), field(b)) })
				SortKeys(keys, rg[0], rg[1])
				if !slices.Equal(keys, want) {
					t.Fatalf("n %d bits %v spread %d: not the stable order", n, rg, spread)
				}
			}
		}
	}
}

// FuzzSortKeys checks SortKeys against a stable comparison sort on fuzzed
// keys and bit ranges.
func FuzzSortKeys(f *testing.F) {
	f.Add([]byte{9, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0}, uint8(0), uint8(64))
	f.Add([]byte{200, 100, 50, 25}, uint8(2), uint8(7))
	f.Fuzz(func(t *testing.T, b []byte, from, to uint8) {
		keys := make([]uint64, len(b)/8)
		for i := range keys {
			for j := range 8 {
				keys[i] |= uint64(b[8*i+j]) << (8 * j)
			}
		}
		lo, hi := uint(from%65), uint(to%65)
		m := fieldMask(lo, hi)
		field := func(k uint64) uint64 { return k & m }
		want := slices.Clone(keys)
		slices.SortStableFunc(want, func(a, b uint64) int { return cmp.Compare(field(a), field(b)) })
		SortKeys(keys, lo, hi)
		if !slices.Equal(keys, want) {
			t.Fatalf("bits [%d, %d): not the stable order", lo, hi)
		}
	})
}

// fieldMask has bits [lo, hi) set (none when hi ≤ lo).
func fieldMask(lo, hi uint) uint64 {
	if hi <= lo {
		return 0
	}
	return (1<<(hi-lo) - 1) << lo // 1<<64 wraps to 0, so hi-lo = 64 gives all ones
}
