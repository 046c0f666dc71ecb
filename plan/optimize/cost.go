package optimize

import (
	"math/bits"
	"slices"
)

// coster estimates a set of a region's nodes joined, and the cost of a
// join order, for dpccp (dpccp.go) and for comparing its order with
// greedy's (the tests). Sets are bitmasks over the nodes in local order:
// bit k is node nodes[k].
//
// A set's estimate is one number whatever the order its nodes are joined
// in, built from the estimator's own steps (estimate.go): the nodes each
// equality-connected group holds are joined by keyJoin (a key join keeps
// the smaller side's fraction of the larger; folded over a group it is
// the product of the nodes' fractions times the largest table's rows,
// in any order), the groups multiplied (a cross product), and every
// conjunct inside the set beyond the keys that joined the groups keeps
// filterKeeps (filtered), but for a composite key's second equality
// (newCoster). It equals estimator.rows of a tree of the set whose joins
// each have one equality between their sides (chains, stars); it is what lets dynamic programming keep one plan per
// set: with a cost that adds each join's output (C_out) and an estimate
// that does not depend on the split, the cheapest plan of a set is built
// from the cheapest plans of its two halves.
type coster struct {
	ests  []estimate // per local node
	conds []setCond
	// memo is each set's estimate once computed (have).
	memo []estimate
	have []bool
}

// setCond is a join conjunct as a set of local nodes; a and b are its two
// nodes when it is an equality (equi), a hash key.
type setCond struct {
	set  uint64
	equi bool
	a, b int
}

// newCoster is the coster of g's nodes in local order nodes (global index
// per local position; at most dpLimit of them), with their estimates
// ests (by global index).
func newCoster(g *graph, ests []estimate, nodes []int) *coster {
	local := make([]int, len(g.nodes))
	c := &coster{ests: make([]estimate, len(nodes)), memo: make([]estimate, 1<<len(nodes)), have: make([]bool, 1<<len(nodes))}
	for k, i := range nodes {
		local[i] = k
		c.ests[k] = ests[i]
	}
	for _, cd := range g.conds {
		var sc setCond
		for _, n := range cd.nodes {
			sc.set |= 1 << local[n]
		}
		if cd.equi {
			sc.equi, sc.a, sc.b = true, local[cd.nodes[0]], local[cd.nodes[1]]
			// A second equality between the same two nodes is part of
			// one composite key (TPC-H's lineitem to partsupp on
			// partkey and suppkey): it keeps the key join's rows, where
			// counting it as a restriction would make that join look as
			// selective as a filtered one (Q9's lineitem ⋈ partsupp
			// before the filtered part).
			if slices.ContainsFunc(c.conds, func(o setCond) bool { return o.equi && o.set == sc.set }) {
				continue
			}
		}
		c.conds = append(c.conds, sc)
	}
	return c
}

// card is the estimate of the nodes of set joined (see coster).
func (c *coster) card(set uint64) estimate {
	if c.have[set] {
		return c.memo[set]
	}
	// group[k] is the equality-connected group of node k (union-find).
	var group [64]int
	for k := range group {
		group[k] = k
	}
	find := func(k int) int {
		for group[k] != k {
			group[k] = group[group[k]]
			k = group[k]
		}
		return k
	}
	inside, keys := 0, 0
	for _, cd := range c.conds {
		if cd.set&^set != 0 {
			continue
		}
		inside++
		if cd.equi {
			if a, b := find(cd.a), find(cd.b); a != b {
				group[a] = b
				keys++
			}
		}
	}
	var byGroup [64]*estimate
	for s := set; s != 0; s &= s - 1 {
		k := bits.TrailingZeros64(s)
		r := find(k)
		if byGroup[r] == nil {
			e := c.ests[k]
			byGroup[r] = &e
			continue
		}
		*byGroup[r] = keyJoin(*byGroup[r], c.ests[k])
	}
	var out *estimate
	for s := set; s != 0; s &= s - 1 {
		g := byGroup[bits.TrailingZeros64(s)]
		switch {
		case g == nil:
		case out == nil:
			e := *g
			out = &e
		default:
			out.rows *= g.rows
			out.frac *= g.frac
			out.guessed = out.guessed || g.guessed
		}
	}
	e := out.filtered(inside - keys)
	c.memo[set], c.have[set] = e, true
	return e
}

// cost is t's C_out: the sum of its joins' estimated output rows (a
// leaf costs nothing), and t's set of local nodes; local maps a graph
// node to its local position.
func (c *coster) cost(t *jtree, local []int) (float64, uint64) {
	if t.leaf() {
		return 0, 1 << local[t.node]
	}
	lc, ls := c.cost(t.l, local)
	rc, rs := c.cost(t.r, local)
	return lc + rc + c.card(ls|rs).rows, ls | rs
}
