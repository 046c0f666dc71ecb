package optimize

import (
	"errors"
	"slices"

	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// order rebuilds g's tree: its nodes filtered by their own conjuncts,
// joined in the order dpccp finds cheapest (dpccp.go) when the region
// has at most dpLimit nodes and that order costs less than greedy's,
// else in greedy's order; then a projection
// puts the columns back in the original order, and the conjuncts that
// stay above filter its output.
func (o *optimizer) order(g *graph) (splan.Rel, error) {
	rels := make([]splan.Rel, len(g.nodes))
	ests := make([]estimate, len(g.nodes))
	placed, err := o.twins(g, rels) // twins.go
	if err != nil {
		return nil, err
	}
	for i, n := range g.nodes {
		if !placed[i] {
			if rels[i], err = o.filterThrough(n.rel, n.filters); err != nil {
				return nil, err
			}
		}
		ests[i] = o.est.rows(rels[i])
	}
	g.distinct = func(col int) (float64, bool) {
		i := g.owner(col)
		return o.est.distinct(rels[i], col-g.nodes[i].off)
	}
	g.keys = func(col int) (keySide, bool) {
		i := g.owner(col)
		return o.est.keySpan(rels[i], col-g.nodes[i].off)
	}
	t := greedy(g, ests)
	if len(g.nodes) <= dpLimit {
		t = cheaper(g, ests, t)
	}
	tree, order, err := o.build(g, rels, t)
	if err != nil {
		return nil, err
	}
	return o.restore(g, tree, order)
}

// jtree is a join order: a leaf is one node of the graph; a join has
// its probe side l and its build side r.
type jtree struct {
	node int
	l, r *jtree
}

// leaf reports whether t is one node.
func (t *jtree) leaf() bool { return t.l == nil }

// build is t's relation and its nodes in column order: each join's
// condition is the conjuncts not yet placed that it covers (the lowest
// join that has every node a conjunct reads), a cross product when none.
func (o *optimizer) build(g *graph, rels []splan.Rel, t *jtree) (splan.Rel, []int, error) {
	if t.leaf() {
		return rels[t.node], []int{t.node}, nil
	}
	l, ln, err := o.build(g, rels, t.l)
	if err != nil {
		return nil, nil, err
	}
	r, rn, err := o.build(g, rels, t.r)
	if err != nil {
		return nil, nil, err
	}
	if l, err = o.join(g, l, ln, r, rn); err != nil {
		return nil, nil, err
	}
	return l, append(ln, rn...), nil
}

// greedy is the order for regions over dpLimit nodes (package doc): the
// largest node is the probe side; then, while nodes remain, the one
// joined to the tree by an equality, else by another condition, else by
// nothing; among those the most selective (the smallest fraction of its
// tables' rows its filters keep: a key join keeps that fraction of the
// probe rows), then the smallest, then the first in the original order.
// A node joined by an equality comes with its arm (arm.go): the filtered
// nodes hanging off it alone, joined into its build side first.
func greedy(g *graph, ests []estimate) *jtree {
	first := 0
	for i := range g.nodes {
		if ests[i].rows > ests[first].rows {
			first = i
		}
	}
	used := make([]bool, len(g.nodes))
	used[first] = true
	done := 1
	tree := &jtree{node: first}
	for done < len(g.nodes) {
		var next *arm
		connected := 0
		for i := range g.nodes {
			if used[i] {
				continue
			}
			c := 0 // 2: an equality with the tree, 1: another condition
			for _, cd := range g.conds {
				if !slices.Contains(cd.nodes, i) || !covered(cd.nodes, used, i) {
					continue
				}
				if cd.equi {
					c = 2
					break
				}
				c = 1
			}
			better := next == nil || c > connected
			if !better && c == connected {
				// By the node's own filters, not its arm's (arm.go).
				a, b := ests[i], ests[next.node]
				better = a.frac < b.frac || (a.frac == b.frac && a.rows < b.rows)
			}
			if better {
				next, connected = &arm{node: i}, c
				if c == 2 {
					next = grow(g, ests, used, i, nil)
				}
			}
		}
		tree = &jtree{l: tree, r: next.tree()}
		for _, i := range next.members() {
			used[i] = true
			done++
		}
	}
	return tree
}

// covered reports whether every node of set is used or is i.
func covered(set []int, used []bool, i int) bool {
	for _, n := range set {
		if n != i && !used[n] {
			return false
		}
	}
	return true
}

// layout maps region columns to their positions in a tree of the nodes
// in order.
func layout(g *graph, order []int) func(int) int {
	pos := make([]int, len(g.nodes))
	at := 0
	for _, i := range order {
		pos[i] = at
		at += g.nodes[i].width
	}
	return func(c int) int {
		n := g.owner(c)
		return pos[n] + c - g.nodes[n].off
	}
}

// join joins the tree of the nodes in order to rel, the tree of the
// nodes in nodes, on the conjuncts not yet placed that the join covers; a
// cross product when there are none.
func (o *optimizer) join(g *graph, tree splan.Rel, order []int, rel splan.Rel, nodes []int) (splan.Rel, error) {
	all := append(slices.Clone(order), nodes...)
	to := layout(g, all)
	var on []expr.Expression
	for _, cd := range g.conds {
		if !cd.placed && !slices.ContainsFunc(cd.nodes, func(n int) bool { return !slices.Contains(all, n) }) {
			on = append(on, remap(cd.e, to))
			cd.placed = true
		}
	}
	if len(on) == 0 {
		out, err := o.b.Cross(tree, rel)
		return out, wrapInternal(err)
	}
	cond, err := o.and(on)
	if err != nil {
		return nil, err
	}
	out, err := o.b.Join(tree, rel, cond, splan.JoinTypeInner)
	return out, wrapInternal(err)
}

// restore puts the tree's columns back in the region's order (a
// projection whose emit drops the constant it must compute) and filters
// its output by the conjuncts that stay above.
func (o *optimizer) restore(g *graph, tree splan.Rel, order []int) (splan.Rel, error) {
	if !slices.IsSorted(order) {
		to := layout(g, order)
		emit := make([]int32, g.width)
		for c := range emit {
			emit[c] = int32(to(c))
		}
		var err error
		if tree, err = o.b.ProjectRemap(tree, emit, expr.NewPrimitiveLiteral(true, false)); err != nil {
			return nil, wrapInternal(err)
		}
	}
	if len(g.above) == 0 {
		return tree, nil
	}
	cond, err := o.and(g.above)
	if err != nil {
		return nil, err
	}
	out, err := o.b.Filter(tree, cond)
	return out, wrapInternal(err)
}

// wrapInternal marks a builder's refusal of what the pass built as its
// own bug.
func wrapInternal(err error) error {
	if err == nil {
		return nil
	}
	return errors.Join(ErrInternal, err)
}
