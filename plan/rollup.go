package plan

import (
	"fmt"
	"slices"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// Grouping sets rolled up from the finest set.
//
// Both producers write GROUPING SETS, ROLLUP and CUBE as one aggregation
// over an expansion (sql/groupingsets.go; plan/ingest/groupingsets.go for
// a Substrait aggregate with several groupings): every input row crossed
// with the set ids (a VALUES relation; a RIGHT join ON true with a marker
// when a set is empty), each key NULL in the sets without it. Run as
// written, every input row is hashed once per set on all its keys.
//
// rolledUp plans it as DuckDB and DataFusion do: the input is aggregated
// once, by the input columns the keys are computed from (the finest
// grouping: the union of all sets' keys), to partial states; the
// expansion then crosses those groups, not the rows, with the set ids,
// and a final aggregation merges the states of the finest groups into
// each set's groups (exec's MergeOver: sum of sums, sum of counts, min of
// mins, avg and the variances through their exact states):
//
//	HashAggregateExec mode=Final   gby=[the keys as the sets null them, set id]
//	  ProjectExec                  the keys, NULL in the sets without them
//	    [FilterExec]               with an empty set: real rows, or its id
//	      CrossExec                Inner (Right ON true with an empty set)
//	        HashAggregateExec mode=Partial  gby=[the finest keys]
//	          input
//	        VirtualTableExec       the set ids
//
// The nodes above the partial aggregate are the plan's own relations,
// compiled over it: the keys group on the input's values as they are (a
// NULL in the data stays apart from a set's NULL fill: the set id is a
// key, and GROUPING() reads it). Over an empty input the partial
// aggregate has no group, so a set with keys has none either, and an
// empty set's id comes once from the RIGHT join with NULL states: the
// empty state (count 0, sum NULL), as PostgreSQL's Agg over no rows.
//
// The shape is taken when every measure has an exact partial state
// (exec.HashAggregateExec.Mergeable: no DISTINCT, ordered-set aggregate,
// string_agg or float sum, whose rounding follows the rows' order); else
// the expansion runs as written. The keys are deterministic (no planner
// function is volatile: shared.go), so computing them once per finest
// group gives each row's value. A FILTER applies at the finest level,
// row by row, as before.

// rolledUp plans the grouping-set aggregation r (groups: its one
// grouping) rolled up from its finest grouping; ok is false when r is not
// such an aggregation or cannot be rolled up (the caller plans it as
// written).
func (p *planner) rolledUp(r *splan.AggregateRel, groups []expr.Expression) (out *rel, ok bool, err error) {
	if p.opt.DisableRollup {
		return nil, false, nil
	}
	x, ok, err := p.expansion(r, groups)
	if err != nil || !ok {
		return nil, false, err
	}
	lt := x.left.RecordType()
	finest := make([]expr.Expression, len(x.finest))
	for i, c := range x.finest {
		if finest[i], err = expr.NewRootFieldRef(expr.NewStructFieldRef(int32(c)), &lt); err != nil {
			return nil, false, fmt.Errorf("%w: grouping sets: %w", ErrInvalidPlan, err)
		}
	}
	_, single, err := p.aggregateOver(x.left, finest, r.Measures(), true)
	if err != nil {
		return nil, false, err
	}
	if !single.Mergeable() {
		return nil, false, nil // planned again as written; this try is dropped
	}
	partial, err := single.PartialOver(single.Children()[0])
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	ids, err := p.compile(x.ids, nil, hint{})
	if err != nil {
		return nil, false, err
	}
	join, err := exec.NewCrossExec(partial, ids.node, x.typ) // each batch of groups once per set id, shared
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	// The join relation's fields over the new join: a finest key's column
	// of the partial output, or the set id's; the input's other columns
	// are gone (nothing above reads them: expansion checked).
	pw := partial.Schema().NumFields()
	leaf := &rel{node: join, cols: make([]int, x.wl+len(ids.cols)), names: make([]string, x.wl+len(ids.cols))}
	for j := range x.wl {
		leaf.cols[j] = -1
		if k := slices.Index(x.finest, j); k >= 0 {
			leaf.cols[j], leaf.names[j] = k, partial.Schema().Field(k).Name
		}
	}
	for i, c := range ids.cols {
		leaf.cols[x.wl+i], leaf.names[x.wl+i] = pw+c, ids.names[i]
		if c < 0 {
			leaf.cols[x.wl+i] = -1
		}
	}
	w, err := p.width(r.Input())
	if err != nil {
		return nil, false, err
	}
	need, err := inputNeed(w, make([]bool, w), groups...)
	if err != nil {
		return nil, false, err
	}
	p.rollupLeaf = map[splan.Rel]*rel{x.join: leaf}
	in, err := p.compile(r.Input(), need, hint{})
	p.rollupLeaf = nil
	if err != nil {
		return nil, false, err
	}
	var extras []physexpr.Expr
	var names []string
	gcols := make([]int, len(groups))
	var extraOf []int
	for i, g := range groups {
		ce, err := p.expr(g, in)
		if err != nil {
			return nil, false, err
		}
		if c, ok := ce.(physexpr.Col); ok {
			gcols[i] = c.Index
			continue
		}
		extras, names, extraOf = append(extras, ce), append(names, fmt.Sprintf("group%d", i)), append(extraOf, i)
	}
	node := in.node
	if len(extras) > 0 {
		var idx []int
		if node, idx, err = withExtra(p.extended, node, extras, names); err != nil {
			return nil, false, err
		}
		for k, i := range extraOf {
			gcols[i] = idx[k]
		}
	}
	// The relations above the join keep its columns (a filter, a
	// projection's extra columns after them): the states are where the
	// partial aggregate put them, after the finest keys.
	final, err := single.MergeOver(partial, node, gcols, len(x.finest))
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	out = &rel{node: final}
	for i, f := range final.Schema().Fields() {
		out.cols, out.names = append(out.cols, i), append(out.names, f.Name)
	}
	return out, true, nil
}

// expansion is a grouping-set aggregation's expansion below the
// aggregate: projections and filters over the join of the input (left)
// with the set ids (a VALUES relation).
type expansion struct {
	join  splan.Rel // the CrossRel, or the JoinRel RIGHT ON true
	left  splan.Rel
	ids   *splan.VirtualTableReadRel
	typ   exec.JoinType
	wl    int // left's width
	chain []splan.Rel
	// finest are the left columns the keys and the filters read: the
	// finest grouping.
	finest []int
}

// expansion matches r's input against the expansion: a chain of
// projections and filters that pass the left input's columns through in
// place, over a cross product (or a RIGHT join ON true) of the left input
// with a VALUES relation of two rows or more; r's measures read only the
// left input's columns, and the keys read at least one of them (so over
// an empty input the finest aggregate has no group, as the expansion has
// no row). ok is false when r is not of that shape.
func (p *planner) expansion(r *splan.AggregateRel, groups []expr.Expression) (x expansion, ok bool, err error) {
	cur := r.Input()
	for done := false; !done; {
		switch c := cur.(type) {
		case *splan.ProjectRel:
			x.chain, cur = append(x.chain, c), c.Input()
		case *splan.FilterRel:
			x.chain, cur = append(x.chain, c), c.Input()
		default:
			done = true
		}
	}
	switch j := cur.(type) {
	case *splan.CrossRel:
		x.left, x.typ = j.Left(), exec.JoinInner
		x.ids, _ = j.Right().(*splan.VirtualTableReadRel)
	case *splan.JoinRel:
		if j.Type() != splan.JoinTypeRight || !isTrue(j.Expr()) || postFilter(j) != nil {
			return x, false, nil
		}
		x.left, x.typ = j.Left(), exec.JoinRight
		x.ids, _ = j.Right().(*splan.VirtualTableReadRel)
	default:
		return x, false, nil
	}
	x.join = cur
	if x.ids == nil || len(x.ids.Values()) < 2 || cur.OutputMapping() != nil || x.ids.OutputMapping() != nil {
		return x, false, nil
	}
	if p.share != nil {
		// A relation compiled once for several readers is left alone: its
		// compiled form must not be this aggregate's.
		for _, c := range append(slices.Clone(x.chain), cur) {
			if _, shared := p.share.key[c]; shared {
				return x, false, nil
			}
		}
	}
	if x.wl, err = p.width(x.left); err != nil {
		return x, false, err
	}
	// Each relation of the chain keeps the left's columns in place.
	for _, c := range x.chain {
		if m := c.OutputMapping(); m != nil {
			if len(m) < x.wl {
				return x, false, nil
			}
			for j := range x.wl {
				if int(m[j]) != j {
					return x, false, nil
				}
			}
		}
	}
	// The measures read the left input's columns only (not a key as the
	// sets null it, nor the set id): they are computed below the join.
	for _, m := range r.Measures() {
		f := m.Measure()
		if f == nil || len(f.Sorts) > 0 {
			return x, false, nil
		}
		es := []expr.Expression{m.Filter()}
		for k := range f.NArgs() {
			a, isExpr := f.Arg(k).(expr.Expression)
			if !isExpr {
				return x, false, nil
			}
			es = append(es, a)
		}
		for _, e := range es {
			if e == nil {
				continue
			}
			beyond := false
			if err := refs(e, func(i int) error { beyond = beyond || i >= x.wl; return nil }); err != nil {
				return x, false, err
			}
			if beyond {
				return x, false, nil
			}
		}
	}
	// The left columns the keys read, through the chain, top down.
	read := map[int]bool{}
	for _, g := range groups {
		if err := refs(g, func(i int) error { read[i] = true; return nil }); err != nil {
			return x, false, err
		}
	}
	for _, c := range x.chain {
		if read, err = p.readBelow(c, read); err != nil {
			return x, false, err
		}
	}
	for j := range read {
		if j < x.wl {
			x.finest = append(x.finest, j)
		}
	}
	slices.Sort(x.finest)
	if len(x.finest) == 0 {
		return x, false, nil
	}
	return x, true, nil
}

// readBelow is the input fields of c (a ProjectRel or FilterRel of the
// chain) that its output fields read computes from, with a filter's own
// condition's.
func (p *planner) readBelow(c splan.Rel, read map[int]bool) (map[int]bool, error) {
	direct := func(o int) int {
		if m := c.OutputMapping(); m != nil && o < len(m) {
			return int(m[o])
		}
		return o
	}
	below := map[int]bool{}
	mark := func(i int) error { below[i] = true; return nil }
	switch c := c.(type) {
	case *splan.FilterRel:
		for o := range read {
			below[direct(o)] = true
		}
		if err := refs(c.Condition(), mark); err != nil {
			return nil, err
		}
	case *splan.ProjectRel:
		w, err := p.width(c.Input())
		if err != nil {
			return nil, err
		}
		for o := range read {
			d := direct(o)
			if d < w {
				below[d] = true
				continue
			}
			if d-w >= len(c.Expressions()) {
				return nil, fmt.Errorf("%w: ProjectRel emits field %d of %d", ErrInvalidPlan, d, w+len(c.Expressions()))
			}
			if err := refs(c.Expressions()[d-w], mark); err != nil {
				return nil, err
			}
		}
	}
	return below, nil
}
