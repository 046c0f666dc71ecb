package rowmap

import (
	"cmp"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKeyLayout checks the keys the dense-request path sweeps by: each
// decodes back to its row and position, and they come grouped by ascending
// block with positions ascending within a block — a stable sort by block,
// computed here by comparison — for sorted and unsorted rows, rows far from
// zero, and block sizes that are and are not powers of two.
func TestKeyLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for _, c := range []struct {
		n             int
		base, max, bs uint64
		sorted        bool
	}{{1, 0, 10, 4, false}, {300, 5, 40, 1, false}, {300, 5, 40, 7, true}, {300, 5, 4000, 7, false},
		{100_000, 1 << 40, 10_000_000, 65536, false}, {5000, 3, 50_000, 65536, true}} {
		rows := make([]uint64, c.n)
		for i := range rows {
			rows[i] = c.base + r.Uint64N(c.max)
		}
		if c.sorted {
			slices.Sort(rows)
		}
		lo, hi := slices.Min(rows), slices.Max(rows)
		kl := keyLayout{loBlock: lo / c.bs, bs: c.bs, blockBits: uint(bits.Len64(hi/c.bs - lo/c.bs)),
			offBits: uint(bits.Len64(c.bs - 1)), posBits: uint(bits.Len64(uint64(c.n - 1)))}
		want := make([]int, c.n)
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(rows[a]/c.bs, rows[b]/c.bs) })
		for k, key := range kl.keys(rows) {
			pos := int(key & (1<<kl.posBits - 1))
			row := (key>>(kl.offBits+kl.posBits)+kl.loBlock)*c.bs + key>>kl.posBits&(1<<kl.offBits-1)
			if pos != want[k] || row != rows[pos] {
				t.Fatalf("n %d blocks of %d: key %d is row %d at %d, want row %d at %d", c.n, c.bs, k, row, pos, rows[want[k]], want[k])
			}
		}
	}
}

// BenchmarkBlockKeys1M groups 1M random rows of a 10M-row map by 64K-row
// block, the keys a 1M-id take after a recluster sweeps by.
func BenchmarkBlockKeys1M(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 7))
	rows := make([]uint64, 1_000_000)
	for i := range rows {
		rows[i] = r.Uint64N(10_000_000)
	}
	kl := keyLayout{bs: 65536, blockBits: 8, offBits: 16, posBits: 20}
	for b.Loop() {
		kl.keys(rows)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)), "ns/row")
}
