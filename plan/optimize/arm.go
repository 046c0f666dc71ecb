package optimize

import (
	"slices"
)

// arm is a node's build side in order's greedy order: the node, joined
// first with the filtered nodes that hang off it alone by equalities
// (TPC-H Q11: supplier ⋈ (nation WHERE n_name = 'GERMANY') is built
// before partsupp probes it, instead of partsupp ⋈ supplier, all its
// rows, then ⋈ nation), so the tree's join keeps fewer rows sooner: a
// bushy tree where a left-deep one would carry every probe row through
// the unfiltered join first. The SQL front end's FROM-list ordering built
// these arms before the optimizer took the ordering over (issue 27).
type arm struct {
	node int
	kids []*arm
	// frac is the fraction of the node's rows it and its kids keep
	// (estimated).
	frac float64
}

// members are the arm's nodes in build order: the node, then each kid's.
func (a *arm) members() []int {
	out := []int{a.node}
	for _, k := range a.kids {
		out = append(out, k.members()...)
	}
	return out
}

// equiBetween reports whether a conjunct of g is an equality between
// nodes i and j.
func equiBetween(g *graph, i, j int) bool {
	return slices.ContainsFunc(g.conds, func(c *conjunct) bool {
		return c.equi && slices.Contains(c.nodes, i) && slices.Contains(c.nodes, j)
	})
}

// grow is node i's arm: the nodes not used and not seen that an equality
// joins to i and none joins to the tree, each with its own arm, when that
// arm keeps less than all its rows (a filter, or a kid's).
func grow(g *graph, ests []estimate, used []bool, i int, seen []int) *arm {
	a := &arm{node: i, frac: ests[i].frac}
	seen = append(seen, i)
	for j := range g.nodes {
		if used[j] || slices.Contains(seen, j) || !equiBetween(g, i, j) {
			continue
		}
		if slices.ContainsFunc(usedNodes(used), func(t int) bool { return equiBetween(g, j, t) }) {
			continue
		}
		if k := grow(g, ests, used, j, seen); k.frac < 1 {
			a.kids = append(a.kids, k)
			a.frac *= k.frac
			seen = append(seen, k.members()...)
		}
	}
	return a
}

// usedNodes is the nodes used marks.
func usedNodes(used []bool) []int {
	var out []int
	for i, u := range used {
		if u {
			out = append(out, i)
		}
	}
	return out
}

// tree is a's join order: its node joined with each kid's tree in turn.
func (a *arm) tree() *jtree {
	t := &jtree{node: a.node}
	for _, k := range a.kids {
		t = &jtree{l: t, r: k.tree()}
	}
	return t
}
