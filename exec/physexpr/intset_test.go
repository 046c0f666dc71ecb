package physexpr

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIntSetAgainstMap: both forms of intSet (dense and hashed) answer as
// a Go map of the same values does, for lists with duplicates, zero,
// negatives and the extremes, probed with members, neighbours and random
// values.
func TestIntSetAgainstMap(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 6))
	lists := map[string][]int64{
		"dense strided":  {},
		"dense negative": {},
		"hashed wide":    {},
		"extremes":       {math.MinInt64, math.MaxInt64, 0, -1, 1, math.MinInt64, 0},
		"one zero":       {0},
		"one":            {-7},
	}
	for i := range 5000 {
		lists["dense strided"] = append(lists["dense strided"], int64(i*7), int64(i*7))
		lists["dense negative"] = append(lists["dense negative"], -int64(r.IntN(100_000)))
		lists["hashed wide"] = append(lists["hashed wide"], r.Int64()-r.Int64(), int64(i))
	}
	for name, vals := range lists {
		t.Run(name, func(t *testing.T) {
			s := newIntSet(vals)
			want := map[int64]bool{}
			for _, v := range vals {
				want[v] = true
			}
			require.Equal(t, len(want), s.n)
			switch name {
			case "dense strided", "dense negative":
				require.NotNil(t, s.bits, "dense form")
			case "hashed wide", "extremes":
				require.NotNil(t, s.slots, "hashed form")
			}
			probes := []int64{math.MinInt64, math.MaxInt64, 0, 1, -1}
			for _, v := range vals {
				probes = append(probes, v, v+1, v-1)
			}
			for range 20_000 {
				probes = append(probes, r.Int64()-r.Int64(), int64(r.IntN(50_000))-10_000)
			}
			for _, p := range probes {
				require.Equal(t, want[p], s.has(p), "%d", p)
			}
			keys := s.keys()
			slices.Sort(keys)
			var wantKeys []int64
			for v := range want {
				wantKeys = append(wantKeys, v)
			}
			slices.Sort(wantKeys)
			require.Equal(t, wantKeys, keys)
		})
	}
	require.False(t, newIntSet([]int64{}).has(0))
	require.True(t, newIntSet([]int32{math.MinInt32, 5}).has(math.MinInt32))
}
