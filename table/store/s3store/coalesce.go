package s3store

import (
	"cmp"
	"slices"

	"github.com/stablerow/stablerow/table/store"
)

// group is one GET serving several requested ranges.
type group struct {
	store.Range
	members []int // indexes into the requested ranges
}

// coalesce plans the GETs for ranges: sorted by offset, a range joins the
// current group when its gap to the group's end is at most gap bytes and
// the group stays within maxLen bytes (a single range longer than maxLen
// is its own group). Overlapping and duplicate ranges share a group. The
// groups come out sorted and disjoint, and every range with Len > 0 lies
// inside its group; empty ranges belong to no group.
func coalesce(ranges []store.Range, gap, maxLen int64) []group {
	order := make([]int, 0, len(ranges))
	for i, r := range ranges {
		if r.Len > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ranges[a].Off, ranges[b].Off) })
	var gs []group
	for _, i := range order {
		r := ranges[i]
		if n := len(gs); n > 0 {
			g := &gs[n-1]
			end := max(g.End(), r.End())
			overlaps := r.Off < g.End()
			if overlaps || gap >= 0 && r.Off-g.End() <= gap && end-g.Off <= maxLen {
				g.Len = end - g.Off
				g.members = append(g.members, i)
				continue
			}
		}
		gs = append(gs, group{Range: r, members: []int{i}})
	}
	return gs
}
