package optimize

import (
	"math/bits"
)

// dpLimit is the largest region dpccp orders; a larger one takes greedy's
// order (order.go). A clique of 12 nodes has about 265,000 pairs of a
// connected subgraph and its connected complement, a few milliseconds;
// the count grows as 3^n for a clique (as 2^n for a star, n^3 for a
// chain), so the limit is set by the clique, as PostgreSQL's
// geqo_threshold (12) hands larger FROM lists to its genetic search.
const dpLimit = 12

// dpccp is the cheapest join order of g by dynamic programming over the
// connected subgraphs of its join graph (DPccp: Moerkotte and Neumann,
// "Analysis of Two Existing and One New Dynamic Programming Algorithm
// for the Generation of Optimal Bushy Join Trees without Cross
// Products", VLDB 2006): every pair of a connected set of nodes and a
// connected set adjacent to it and disjoint from it (a csg-cmp pair) is
// met once, and the cheapest plan of their union is the cheapest of its
// pairs' plans. The cost is C_out, the sum of each join's estimated
// output rows (coster), so a filtered dimension is joined into its build
// side before the fact table probes it (the arm rule's intent, arm.go)
// wherever that keeps fewer rows, and not where it would fan each probe
// row out (TestDPccpBeatsArm).
//
// Two nodes are adjacent when an equality joins them (a hash key), as
// greedy's order joins a node by an equality while one does: a
// node met by another condition alone (an OR over two nations, TPC-H
// Q7; s.nk < c.nk) waits until an equality brings it in, so no nested
// loop join pairs it with a node the equalities would reach anyway. A
// graph of several parts connected by equalities also gets an edge
// between every two nodes of different parts, so that the joins the
// query needs between them (on other conditions, or cross products) are
// placed by their cost too, as PostgreSQL's join search tries a
// clauseless join of a relation that has no join clause
// (make_rels_by_clauseless_joins); a graph the equalities connect gets
// none. Every conjunct is still the condition of the lowest join that
// has its nodes (build).
// Each join's larger input is the probe side (left), the smaller the
// build side, as in greedy's order.
//
// It returns the order, its coster and the local numbering of g's nodes
// the coster's sets use.
func dpccp(g *graph, ests []estimate) (*jtree, *coster, []int) {
	n := len(g.nodes)
	adj := make([]uint64, n)
	for _, cd := range g.conds {
		if cd.equi {
			a, b := cd.nodes[0], cd.nodes[1]
			adj[a] |= 1 << b
			adj[b] |= 1 << a
		}
	}
	// Parts of the graph, and edges between them.
	part := make([]uint64, n)
	for i := range n {
		if part[i] != 0 {
			continue
		}
		p := reach(adj, i)
		for s := p; s != 0; s &= s - 1 {
			part[bits.TrailingZeros64(s)] = p
		}
	}
	all := uint64(1)<<n - 1
	for i := range n {
		adj[i] |= all &^ part[i]
	}
	// DPccp numbers the nodes breadth-first (the paper's precondition
	// for meeting each pair once); local is that numbering.
	order := bfs(adj)
	local := make([]int, n)
	for k, i := range order {
		local[i] = k
	}
	ladj := make([]uint64, n)
	for i, a := range adj {
		for s := a; s != 0; s &= s - 1 {
			ladj[local[i]] |= 1 << local[bits.TrailingZeros64(s)]
		}
	}
	c := newCoster(g, ests, order)
	d := &dp{adj: ladj, n: n, bySize: make([][]uint32, n+1)}
	d.enumerate()
	best := make([]*plan, 1<<n)
	for k := range n {
		best[1<<k] = &plan{tree: &jtree{node: order[k]}}
	}
	// Pairs by the size of their union: both halves are smaller, so
	// their cheapest plans are final when the union's pairs are met.
	for _, pairs := range d.bySize {
		for _, p := range pairs {
			s1, s2 := uint64(p>>16), uint64(p&0xffff)
			l, r := best[s1], best[s2]
			s := s1 | s2
			cost := l.cost + r.cost + c.card(s).rows
			if b := best[s]; b != nil && b.cost <= cost {
				continue
			}
			if c.card(s2).rows > c.card(s1).rows {
				l, r = r, l
			}
			best[s] = &plan{cost: cost, tree: &jtree{l: l.tree, r: r.tree}}
		}
	}
	return best[all].tree, c, local
}

// cheaper is dpccp's order of g where it costs under 1/buildFactor of
// greedy's order gt, else gt: the margin of one conjunct's guess, as
// region keeps a producer's explicit joins (joins.go). Every restriction
// is guessed to keep a quarter, so a cost within a factor of 4 is within
// the error of one guess, and greedy's order (the one TPC-H's plans were
// tuned on) is no worse by anything the estimates know: TPC-H Q8 at a
// C_out 2.7 times lower would probe a 6M-row lineitem into orders ⋈
// customer (a quarter of a quarter, by the guesses) before the part
// filter that keeps 1/150 of it. With equal costs C_out does not tell
// the two apart at all.
func cheaper(g *graph, ests []estimate, gt *jtree) *jtree {
	t, c, local := dpccp(g, ests)
	dc, _ := c.cost(t, local)
	gc, _ := c.cost(gt, local)
	if dc*buildFactor < gc {
		return t
	}
	largerProbes(gt, c, local)
	return gt
}

// probeFactor: a greedy join's build side must be estimated this many
// times its probe side for the two to be swapped (largerProbes), the
// margin plan/buildside.go gives an outer join's swap.
const probeFactor = 2

// largerProbes swaps the sides of each join of greedy's tree t whose
// build side (r) is estimated over probeFactor times its probe side,
// and returns t's set of local nodes. Greedy's order starts from the
// largest node, so its first joins probe with the larger side, but a
// node joined late (an unfiltered fact table that only meets the others
// through a filtered dimension: TPC-DS Q37's catalog_sales, 1.4M rows,
// built to be probed by the 285 rows inventory, item and date_dim left)
// is built whatever its size. The cost (C_out) is the same either way;
// building the smaller side is what dpccp's trees do too.
func largerProbes(t *jtree, c *coster, local []int) uint64 {
	if t.leaf() {
		return 1 << local[t.node]
	}
	ls, rs := largerProbes(t.l, c, local), largerProbes(t.r, c, local)
	if l, r := c.card(ls), c.card(rs); !l.guessed && !r.guessed && r.rows > probeFactor*l.rows {
		t.l, t.r = t.r, t.l
	}
	return ls | rs
}

// plan is the cheapest plan found of a set of nodes.
type plan struct {
	cost float64
	tree *jtree
}

// reach is the nodes connected to i by adj.
func reach(adj []uint64, i int) uint64 {
	seen := uint64(1) << i
	for front := seen; front != 0; {
		var next uint64
		for s := front; s != 0; s &= s - 1 {
			next |= adj[bits.TrailingZeros64(s)]
		}
		front = next &^ seen
		seen |= next
	}
	return seen
}

// bfs is the nodes of a connected graph in breadth-first order from
// node 0.
func bfs(adj []uint64) []int {
	out := []int{0}
	seen := uint64(1)
	for k := 0; k < len(out); k++ {
		for s := adj[out[k]] &^ seen; s != 0; s &= s - 1 {
			i := bits.TrailingZeros64(s)
			out = append(out, i)
			seen |= 1 << i
		}
	}
	return out
}

// dp enumerates the csg-cmp pairs of a connected graph whose nodes are
// numbered breadth-first, as (csg << 16 | cmp), bucketed by the size of
// their union.
type dp struct {
	adj    []uint64
	n      int
	bySize [][]uint32
}

// neighbors is the nodes adjacent to s, not in s.
func (d *dp) neighbors(s uint64) uint64 {
	var out uint64
	for x := s; x != 0; x &= x - 1 {
		out |= d.adj[bits.TrailingZeros64(x)]
	}
	return out &^ s
}

// enumerate is the paper's EnumerateCsg with, for each connected
// subgraph, EnumerateCmp: node i's subgraphs use no node numbered below
// it (B_i, the nodes up to i, excluded), so each set is met once.
func (d *dp) enumerate() {
	for i := d.n - 1; i >= 0; i-- {
		s := uint64(1) << i
		d.csg(s)
		d.csgRec(s, uint64(1)<<(i+1)-1, d.csg)
	}
}

// csg meets a connected subgraph s1: each connected complement.
func (d *dp) csg(s1 uint64) {
	lo := bits.TrailingZeros64(s1)
	x := uint64(1)<<(lo+1) - 1 | s1
	nb := d.neighbors(s1) &^ x
	for i := d.n - 1; i >= 0; i-- {
		v := uint64(1) << i
		if nb&v == 0 {
			continue
		}
		d.pair(s1, v)
		d.csgRec(v, x|(nb&(uint64(1)<<(i+1)-1)), func(s2 uint64) { d.pair(s1, s2) })
	}
}

// pair records the csg-cmp pair (s1, s2).
func (d *dp) pair(s1, s2 uint64) {
	k := bits.OnesCount64(s1 | s2)
	d.bySize[k] = append(d.bySize[k], uint32(s1)<<16|uint32(s2))
}

// csgRec is the paper's EnumerateCsgRec: every connected superset of s
// grown by neighbors not in x, each met once.
func (d *dp) csgRec(s, x uint64, emit func(uint64)) {
	nb := d.neighbors(s) &^ x
	if nb == 0 {
		return
	}
	for sub := nb; sub != 0; sub = (sub - 1) & nb {
		emit(s | sub)
	}
	for sub := nb; sub != 0; sub = (sub - 1) & nb {
		d.csgRec(s|sub, x|nb, emit)
	}
}
