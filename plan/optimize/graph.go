package optimize

import (
	"slices"

	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// isRegionJoin reports whether r is a join the pass may reorder: a cross
// product or an inner join, with its columns as they come (no emit).
func isRegionJoin(r splan.Rel) bool {
	switch j := r.(type) {
	case *splan.CrossRel:
		return j.OutputMapping() == nil
	case *splan.JoinRel:
		// A lateral join left by Decorrelate is an expand (expand.go):
		// its right input reads the left's columns, so it is a barrier.
		return j.Type() == splan.JoinTypeInner && j.OutputMapping() == nil && !substraitfn.IsLateralJoin(j.GetAdvancedExtension())
	}
	return false
}

// node is one relation of a join graph: a table read, or anything that
// is not an inner join or cross product (a barrier), already optimized.
type node struct {
	rel   splan.Rel
	orig  splan.Rel // rel before the rewrite (twins.go)
	off   int       // its first column in the region's columns
	width int
	// filters are the conjuncts over it alone, over its own columns.
	filters []expr.Expression
}

// conjunct is one conjunct of the region's conditions, over the region's
// columns (the original tree's output).
type conjunct struct {
	e     expr.Expression
	nodes []int // the nodes it reads, ascending
	// equi: equal(a, b) with a over one node and b over another (a hash
	// join key when one is in the tree and the other joins it).
	equi   bool
	placed bool
}

// graph is an inner join region flattened: its nodes in the original
// column order, the conjuncts joining them, and the conjuncts that stay
// above the rebuilt tree.
type graph struct {
	nodes []*node
	conds []*conjunct
	above []expr.Expression
	width int
	// distinct is the distinct count of a region column, when known
	// (estimator.distinct of its node's filtered relation); nil: none
	// known. The coster's equivalence classes read it (cost.go).
	distinct func(col int) (float64, bool)
	// keys is the keySide of a region column (estimator.keySpan of its
	// node's filtered relation); nil: none known. The coster's
	// containment reads it (cost.go).
	keys func(col int) (keySide, bool)
}

// flatten adds the region at r, whose columns start at off, to g: its
// nodes (each optimized by o) and the conjuncts of its filters and join
// conditions, shifted to the region's columns.
func (o *optimizer) flatten(g *graph, r splan.Rel, off int) error {
	// add adds e's conjuncts, in the region's columns, expanded (the nodes
	// below r are in g already, and e reads only theirs).
	add := func(e expr.Expression) error {
		var cs []expr.Expression
		for _, c := range conjuncts(e) {
			cs = append(cs, remap(c, func(i int) int { return i + off }))
		}
		cs, _, err := o.expand(g, cs)
		for _, c := range cs {
			g.conds = append(g.conds, &conjunct{e: c})
		}
		return err
	}
	switch j := r.(type) {
	case *splan.FilterRel:
		if j.OutputMapping() == nil && isRegionJoin(j.Input()) {
			if err := o.flatten(g, j.Input(), off); err != nil {
				return err
			}
			return add(j.Condition())
		}
	case *splan.CrossRel:
		if isRegionJoin(j) {
			if err := o.flatten(g, j.Left(), off); err != nil {
				return err
			}
			return o.flatten(g, j.Right(), off+width(j.Left()))
		}
	case *splan.JoinRel:
		if isRegionJoin(j) {
			if err := o.flatten(g, j.Left(), off); err != nil {
				return err
			}
			if err := o.flatten(g, j.Right(), off+width(j.Left())); err != nil {
				return err
			}
			if err := add(j.Expr()); err != nil {
				return err
			}
			return add(j.PostJoinFilter())
		}
	}
	opt, err := o.rewrite(r)
	if err != nil {
		return err
	}
	w := width(r)
	g.nodes = append(g.nodes, &node{rel: opt, orig: r, off: off, width: w})
	g.width = max(g.width, off+w)
	return nil
}

// width is the number of columns r outputs.
func width(r splan.Rel) int { return len(r.RecordType().Types()) }

// owner is the node holding region column c.
func (g *graph) owner(c int) int {
	for i := len(g.nodes) - 1; i >= 0; i-- {
		if c >= g.nodes[i].off {
			return i
		}
	}
	return 0
}

// nodesOf is the nodes e reads, ascending; ok false when e reads what
// cannot be placed (columns).
func (g *graph) nodesOf(e expr.Expression) (set []int, ok bool) {
	ok = columns(e, func(c int) {
		if n := g.owner(c); !slices.Contains(set, n) {
			set = append(set, n)
		}
	})
	slices.Sort(set)
	return set, ok
}

// classify sorts the conjuncts: over one node, a filter of that node
// (distribute_qual_to_rels' restriction clause); over several, a join
// condition; over none, or naming an outer column or holding a subquery,
// a filter above the rebuilt tree.
func (g *graph) classify() {
	var conds []*conjunct
	for _, c := range g.conds {
		set, ok := g.nodesOf(c.e)
		switch {
		case !ok || len(set) == 0:
			g.above = append(g.above, c.e)
		case len(set) == 1:
			n := g.nodes[set[0]]
			n.filters = append(n.filters, remap(c.e, func(i int) int { return i - n.off }))
		default:
			c.nodes = set
			c.equi = g.equi(c.e)
			conds = append(conds, c)
		}
	}
	g.conds = conds
}

// equi reports whether e is equal(a, b), a reading one node and b
// another.
func (g *graph) equi(e expr.Expression) bool {
	f, ok := e.(*expr.ScalarFunction)
	if !ok || name(f) != "equal" || f.NArgs() != 2 {
		return false
	}
	var sides [2][]int
	for i := range 2 {
		a, ok := f.Arg(i).(expr.Expression)
		if !ok {
			return false
		}
		if sides[i], ok = g.nodesOf(a); !ok || len(sides[i]) != 1 {
			return false
		}
	}
	return sides[0][0] != sides[1][0]
}
