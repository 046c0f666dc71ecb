package fragreuse

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBlockPerm checks the permutation the dense-request path sweeps by
// against a stable comparison sort by block: duplicates and rows of one
// block keep their order, blocks far from zero are offset, and blocks too
// many to share a key with the position take the fallback.
func TestBlockPerm(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for _, c := range []struct {
		n             int
		base, max, bs uint64
	}{{1, 0, 10, 4}, {300, 5, 40, 1}, {300, 5, 40, 7}, {100_000, 1 << 40, 10_000_000, 65536}, {5000, 0, 1 << 62, 1}} {
		rows := make([]uint64, c.n)
		for i := range rows {
			rows[i] = c.base + r.Uint64N(c.max)
		}
		want := make([]int32, c.n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(rows[a]/c.bs, rows[b]/c.bs) })
		lo, hi := slices.Min(rows), slices.Max(rows)
		if got := blockPerm(rows, lo/c.bs, hi/c.bs, c.bs); !slices.Equal(got, want) {
			t.Fatalf("n %d rows from %d over %d, blocks of %d: not the stable order", c.n, c.base, c.max, c.bs)
		}
	}
}

// BenchmarkBlockPerm1M groups 1M random rows of a 10M-row map by 64K-row
// block, the permutation a 1M-id take after a recluster sweeps by.
func BenchmarkBlockPerm1M(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 7))
	rows := make([]uint64, 1_000_000)
	for i := range rows {
		rows[i] = r.Uint64N(10_000_000)
	}
	for b.Loop() {
		blockPerm(rows, 0, 10_000_000/65536, 65536)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)), "ns/row")
}
