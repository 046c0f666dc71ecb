package optimize

import (
	"math"
	"math/bits"

	"github.com/substrait-io/substrait-go/v8/expr"
)

// coster estimates a set of a region's nodes joined, and the cost of a
// join order, for dpccp (dpccp.go) and for comparing its order with
// greedy's. Sets are bitmasks over the nodes in local order: bit k is
// node nodes[k].
//
// A set's estimate is one number whatever the order its nodes are joined
// in, so that dynamic programming may keep one plan per set: with a cost
// that adds each join's output (C_out) and an estimate that does not
// depend on the split, the cheapest plan of a set is built from the
// cheapest plans of its two halves. It is the product of the nodes'
// estimated rows, divided per equivalence class of the equalities
// (PostgreSQL's EquivalenceClass: columns the equalities make equal, as
// a.x = b.y AND b.y = c.z) by its domain once for each further node of
// the set it joins: the domain is the largest distinct count of the
// class's columns in the set where the tables' statistics know them
// (PostgreSQL's eqjoinsel without MCVs: 1/max(nd1, nd2)); else the rows
// of the smallest table whose column is in the class (the key side of a
// foreign key, as keyJoin assumes: an equality keeps the larger table's
// rows), so two columns that both refer to a third, smaller table's key
// meet as many-to-many (TPC-H Q5's customer and supplier on their
// nation: 25 values, not the supplier's 10,000 keys, which their own
// distinct counts say as well). A class divides once per edge from
// its hub (the node of the set in the most classes) to each of its other
// nodes; where several classes join the same pair of nodes (a composite
// key: lineitem to partsupp on partkey and suppkey), their domains'
// product is bounded by the smaller of the two tables, whose rows the
// composite key identifies; a single class's domain is bounded by its
// smallest table too (a distinct count is an estimate, a
// few per cent over the key table's rows, which must not make a key join
// keep fewer rows than the foreign key's table). Each other conjunct
// inside the set keeps filterKeeps. For joins on foreign keys alone
// (chains, stars) this is the estimate keyJoin gives any tree of the
// set.
type coster struct {
	ests    []estimate // per local node
	tables  []float64  // per local node, its largest table's rows (rows/frac)
	classes []class
	others  []uint64 // the other join conjuncts' sets of nodes
	// memo is each set's estimate once computed (have).
	memo []estimate
	have []bool
}

// class is an equivalence class of the equalities: the nodes holding one
// of its columns, and its domain.
type class struct {
	nodes  uint64
	domain float64
	// ndv is, per local node, the largest distinct count known of the
	// class's columns it holds (0: none known); nil for a pair.
	ndv []float64
	// keys is, per local node, its column's key ranges (keySpan; the
	// first column of the class it holds), where has; nil for a pair.
	keys []keySide
	has  []bool
}

// domainOf is the class's domain among the nodes in (a subset of its
// nodes): the largest distinct count known of their columns, as
// PostgreSQL's eqjoinsel divides by max(nd1, nd2) (without MCVs; a
// column's stadistinct, not lowered for its rel's filters); the
// smallest table's rows when none is known.
func (cl *class) domainOf(in uint64) float64 {
	d := 0.0
	for s := in; s != 0 && cl.ndv != nil; s &= s - 1 {
		d = max(d, cl.ndv[bits.TrailingZeros64(s)])
	}
	if d == 0 {
		return cl.domain
	}
	return d
}

// newCoster is the coster of g's nodes in local order nodes (global index
// per local position; at most dpLimit of them), with their estimates
// ests (by global index).
func newCoster(g *graph, ests []estimate, nodes []int) *coster {
	local := make([]int, len(g.nodes))
	n := len(nodes)
	c := &coster{ests: make([]estimate, n), tables: make([]float64, n), memo: make([]estimate, 1<<n), have: make([]bool, 1<<n)}
	for k, i := range nodes {
		local[i] = k
		c.ests[k] = ests[i]
		c.tables[k] = ests[i].rows / ests[i].frac
	}
	// Union-find over the region's columns; an equality whose sides are
	// not one column each is a class of its own (pairs).
	parent := map[int]int{}
	find := func(x int) int {
		if _, ok := parent[x]; !ok {
			parent[x] = x
		}
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	var pairs []uint64
	for _, cd := range g.conds {
		var set uint64
		for _, i := range cd.nodes {
			set |= 1 << local[i]
		}
		if !cd.equi {
			c.others = append(c.others, set)
			continue
		}
		if a, b, ok := equiColumns(cd.e); ok {
			parent[find(a)] = find(b)
			continue
		}
		pairs = append(pairs, set)
	}
	byRoot := map[int]uint64{}
	ndv := map[int][]float64{} // per class root, per local node: the largest distinct count known of its columns
	type sides struct {
		keys []keySide
		has  []bool
		col  []int // the column read: the smallest of the node's, so that the map's order does not matter
	}
	keys := map[int]*sides{} // per class root, per local node: its column's key ranges
	for col := range parent {
		root := find(col)
		k := local[g.owner(col)]
		byRoot[root] |= 1 << k
		if g.keys != nil {
			if ks, ok := g.keys(col); ok {
				if keys[root] == nil {
					keys[root] = &sides{keys: make([]keySide, n), has: make([]bool, n), col: make([]int, n)}
				}
				if sd := keys[root]; !sd.has[k] || col < sd.col[k] {
					sd.keys[k], sd.has[k], sd.col[k] = ks, true, col
				}
			}
		}
		if g.distinct == nil {
			continue
		}
		if d, ok := g.distinct(col); ok {
			if ndv[root] == nil {
				ndv[root] = make([]float64, n)
			}
			ndv[root][k] = max(ndv[root][k], d)
		}
	}
	for _, set := range pairs {
		if bits.OnesCount64(set) >= 2 {
			c.classes = append(c.classes, class{nodes: set, domain: c.smallest(set)})
		}
	}
	for root, set := range byRoot {
		if bits.OnesCount64(set) >= 2 {
			cl := class{nodes: set, domain: c.smallest(set), ndv: ndv[root]}
			if sd := keys[root]; sd != nil {
				cl.keys, cl.has = sd.keys, sd.has
			}
			c.classes = append(c.classes, cl)
		}
	}
	return c
}

// smallest is the rows of the smallest table of the nodes in set.
func (c *coster) smallest(set uint64) float64 {
	d := math.Inf(1)
	for s := set; s != 0; s &= s - 1 {
		d = min(d, c.tables[bits.TrailingZeros64(s)])
	}
	return d
}

// equiColumns is the column each side of the equality e reads, when each
// reads one.
func equiColumns(e expr.Expression) (a, b int, ok bool) {
	f, isFn := e.(*expr.ScalarFunction)
	if !isFn || f.NArgs() != 2 {
		return 0, 0, false
	}
	var cols [2]int
	for i := range 2 {
		x, isExpr := f.Arg(i).(expr.Expression)
		if !isExpr {
			return 0, 0, false
		}
		n := 0
		if !columns(x, func(c int) { cols[i] = c; n++ }) || n != 1 {
			return 0, 0, false
		}
	}
	return cols[0], cols[1], true
}

// card is the estimate of the nodes of set joined (see coster).
func (c *coster) card(set uint64) estimate {
	if c.have[set] {
		return c.memo[set]
	}
	e := estimate{rows: 1, frac: 1}
	largest := 0.0
	for s := set; s != 0; s &= s - 1 {
		x := c.ests[bits.TrailingZeros64(s)]
		e.rows *= x.rows
		e.guessed = e.guessed || x.guessed
		largest = max(largest, x.rows/x.frac)
	}
	// Each class divides by its domain once per further node it joins:
	// one edge from a hub node to each other node of the class in set.
	// The hub is the node in the most classes here, so the edges of
	// several classes meet on the same pairs of nodes, and each pair's
	// domains together are bounded by the smaller of its two tables,
	// whose rows the composite key identifies (lineitem to partsupp on
	// partkey and suppkey: 800K pairs, not 200K × 10K; that product made
	// TPC-H Q9's lineitem ⋈ part ⋈ supplier ⋈ partsupp 613 rows where
	// 322K come, and its 1.5M orders probe them: issue 27).
	classes := 0
	var in [64]int // per local node, the classes of set it is in
	for i := range c.classes {
		cl := &c.classes[i]
		if m := cl.nodes & set; bits.OnesCount64(m) >= 2 {
			classes++
			for s := m; s != 0; s &= s - 1 {
				in[bits.TrailingZeros64(s)]++
			}
		}
	}
	type pair struct{ a, b int }
	var pairs []pair
	var domains []float64
	if classes > 0 {
		for i := range c.classes {
			cl := &c.classes[i]
			m := cl.nodes & set
			if bits.OnesCount64(m) < 2 {
				continue
			}
			d := min(cl.domainOf(m), c.smallest(m))
			if keep, dom, ok := c.contained(cl, m); ok {
				e.rows *= keep
				d = dom
			}
			hub := -1
			for s := m; s != 0; s &= s - 1 {
				if k := bits.TrailingZeros64(s); hub < 0 || in[k] > in[hub] {
					hub = k
				}
			}
			for s := m &^ (1 << hub); s != 0; s &= s - 1 {
				pr := pair{hub, bits.TrailingZeros64(s)}
				if pr.a > pr.b {
					pr.a, pr.b = pr.b, pr.a
				}
				found := false
				for j := range pairs {
					if pairs[j] == pr {
						domains[j] *= d
						found = true
					}
				}
				if !found {
					pairs, domains = append(pairs, pr), append(domains, d)
				}
			}
		}
	}
	for j, pr := range pairs {
		e.rows /= min(domains[j], c.smallest(1<<pr.a|1<<pr.b))
	}
	others := 0
	for _, o := range c.others {
		if o&^set == 0 {
			others++
		}
	}
	e.frac = e.rows / largest
	e = e.filtered(others)
	c.memo[set], c.have[set] = e, true
	return e
}

// contained is the containment of class cl's nodes m (contain), when
// each has its key ranges: the product of the fractions of their rows
// whose keys lie in the range they share (each at least one row), and
// the class's domain there: the largest distinct count known of the
// columns, each scaled to the fraction of its table's key values in the
// shared range, bounded by the smallest table's rows there (domainOf's
// and card's bounds, in the shared range).
func (c *coster) contained(cl *class, m uint64) (keep, domain float64, ok bool) {
	if cl.keys == nil {
		return 0, 0, false
	}
	var nodes []int
	var sides []keySide
	for s := m; s != 0; s &= s - 1 {
		k := bits.TrailingZeros64(s)
		if !cl.has[k] {
			return 0, 0, false
		}
		nodes, sides = append(nodes, k), append(sides, cl.keys[k])
	}
	_, keeps, domains := contain(sides)
	keep = 1
	nd, smallest := 0.0, math.Inf(1)
	for i, k := range nodes {
		keep *= max(keeps[i], 1/max(c.ests[k].rows, 1))
		if cl.ndv != nil && cl.ndv[k] > 0 {
			nd = max(nd, cl.ndv[k]*domains[i])
		}
		smallest = min(smallest, c.tables[k]*domains[i])
	}
	if nd == 0 {
		nd = smallest
	}
	return keep, max(min(nd, smallest), 1), true
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
