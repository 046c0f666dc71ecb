package radix

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// BenchmarkSortKeyed1M: 1M random row ids of a 10M-row table with their
// input positions (index/btree's probe of a 1M-id take), scratch reused
// as the probe reuses it.
func BenchmarkSortKeyed1M(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	src := make([]uint64, 1_000_000)
	for i := range src {
		src[i] = r.Uint64N(10_000_000)
	}
	keys, pos := make([]uint64, len(src)), make([]int32, len(src))
	tk, tp := make([]uint64, len(src)), make([]int32, len(src))
	b.SetBytes(int64(len(src)) * 12)
	b.ResetTimer()
	for range b.N {
		copy(keys, src)
		for i := range pos {
			pos[i] = int32(i)
		}
		SortKeyedBuf(keys, pos, tk, tp)
	}
}

// BenchmarkSortKeys1M: 1M packed keys, a 24-bit field (addresses of a
// 10M-row table) above a 20-bit position, as the take's address sort
// packs them.
func BenchmarkSortKeys1M(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	n := 1_000_000
	posBits := uint(bits.Len(uint(n)))
	src := make([]uint64, n)
	for i := range src {
		src[i] = r.Uint64N(10_000_000)<<posBits | uint64(i)
	}
	keys := make([]uint64, n)
	b.SetBytes(int64(n) * 8)
	b.ResetTimer()
	for range b.N {
		copy(keys, src)
		SortKeys(keys, posBits, posBits+24)
	}
}
