package s3store

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/table/store"
)

func rs(pairs ...int64) []store.Range {
	var out []store.Range
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, store.Range{Off: pairs[i], Len: pairs[i+1]})
	}
	return out
}

// TestCoalesceCases pins hand-worked plans.
func TestCoalesceCases(t *testing.T) {
	type g struct {
		off, len int64
		members  []int
	}
	for _, tc := range []struct {
		name     string
		in       []store.Range
		gap, max int64
		want     []g
	}{
		{"empty", nil, 10, 100, nil},
		{"one", rs(5, 3), 10, 100, []g{{5, 3, []int{0}}}},
		{"gap within threshold merges", rs(0, 10, 20, 5), 10, 100, []g{{0, 25, []int{0, 1}}}},
		{"gap one past threshold splits", rs(0, 10, 21, 5), 10, 100, []g{{0, 10, []int{0}}, {21, 5, []int{1}}}},
		{"unsorted input, members keep caller indexes", rs(100, 4, 0, 4, 50, 4), 60, 1000, []g{{0, 104, []int{1, 2, 0}}}},
		{"overlap and duplicate share a group", rs(0, 10, 5, 10, 5, 10), 0, 1000, []g{{0, 15, []int{0, 1, 2}}}},
		{"adjacent merges at gap 0", rs(0, 10, 10, 10), 0, 1000, []g{{0, 20, []int{0, 1}}}},
		{"negative gap never merges disjoint", rs(0, 10, 10, 10), -1, 1000, []g{{0, 10, []int{0}}, {10, 10, []int{1}}}},
		{"max length splits", rs(0, 60, 60, 60), 10, 100, []g{{0, 60, []int{0}}, {60, 60, []int{1}}}},
		{"oversized single range alone", rs(0, 500), 10, 100, []g{{0, 500, []int{0}}}},
		{"empty ranges belong to no group", rs(3, 0, 0, 2), 10, 100, []g{{0, 2, []int{1}}}},
		{"contained range", rs(0, 100, 10, 5), 0, 50, []g{{0, 100, []int{0, 1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := coalesce(tc.in, tc.gap, tc.max)
			var gg []g
			for _, x := range got {
				gg = append(gg, g{x.Off, x.Len, x.members})
			}
			require.Equal(t, tc.want, gg)
			checkPlan(t, tc.in, got, tc.gap, tc.max)
		})
	}
}

// checkPlan is the reference model of a coalescing plan: every non-empty
// range lies in exactly one group that lists it; groups are sorted and
// disjoint; each group is the exact hull of its members; two consecutive
// groups are split only because their gap exceeds the threshold or merging
// them would pass maxLen.
func checkPlan(t testing.TB, in []store.Range, gs []group, gap, maxLen int64) {
	seen := make([]int, len(in))
	for gi, g := range gs {
		require.NotEmpty(t, g.members)
		lo, hi := int64(-1), int64(-1)
		for _, m := range g.members {
			r := in[m]
			require.Positive(t, r.Len)
			require.True(t, r.Off >= g.Off && r.End() <= g.End(), "range %v outside group %v", r, g.Range)
			seen[m]++
			if lo < 0 || r.Off < lo {
				lo = r.Off
			}
			hi = max(hi, r.End())
		}
		require.Equal(t, store.Range{Off: lo, Len: hi - lo}, g.Range, "group is the hull of its members")
		if gi > 0 {
			p := gs[gi-1]
			require.GreaterOrEqual(t, g.Off, p.End(), "groups sorted and disjoint")
			split := gap < 0 || g.Off-p.End() > gap || g.End()-p.Off > maxLen
			// A split is also right when the next group only grew past
			// maxLen after its first member joined: check the first.
			first := in[g.members[0]]
			split = split || first.End()-p.Off > maxLen
			require.True(t, split, "groups %v and %v should have merged", p.Range, g.Range)
		}
	}
	for i, r := range in {
		want := 1
		if r.Len == 0 {
			want = 0
		}
		require.Equal(t, want, seen[i], "range %d %v", i, r)
	}
}

// FuzzCoalesce checks random range sets against the reference model.
func FuzzCoalesce(f *testing.F) {
	f.Add([]byte{0, 10, 20, 5}, int16(10), uint16(100))
	f.Add([]byte{100, 4, 0, 4, 50, 4, 50, 4}, int16(-1), uint16(8))
	f.Add([]byte{0, 0, 1, 255, 2, 7}, int16(0), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, gap int16, maxLen uint16) {
		var in []store.Range
		for i := 0; i+1 < len(data) && len(in) < 64; i += 2 {
			in = append(in, store.Range{Off: int64(data[i]) * 3, Len: int64(data[i+1] % 40)})
		}
		checkPlan(t, in, coalesce(in, int64(gap), int64(maxLen)), int64(gap), int64(maxLen))
	})
}
