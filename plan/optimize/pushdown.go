package optimize

import (
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// placeable splits conjuncts into those a join graph can place (they read
// at least one column, and no outer column or subquery) and the others.
func placeable(cs []expr.Expression) (place, stay []expr.Expression) {
	for _, c := range cs {
		n := 0
		if columns(c, func(int) { n++ }) && n > 0 {
			place = append(place, c)
		} else {
			stay = append(stay, c)
		}
	}
	return place, stay
}

// push is the region at r in the producer's order with conds (over r's
// columns, all placeable) and the region's own filters and join
// conditions each moved to the lowest place that has all the columns it
// reads: PostgreSQL's distribute_qual_to_rels (a conjunct over one
// relation filters that relation; one over several is a condition of the
// lowest join that has them all, a cross product becoming an inner join).
// r itself when nothing moved. The region's own conjuncts are expanded
// first (expand: OR factoring and the filters an OR implies), as in the
// graph g of the region, where r's columns start at off.
func (o *optimizer) push(g *graph, r splan.Rel, off int, conds []expr.Expression) (splan.Rel, error) {
	// own is e's conjuncts expanded, over r's columns.
	// expanded is whether any was.
	expanded := false
	own := func(e expr.Expression) ([]expr.Expression, error) {
		cs := conjuncts(e)
		shifted := make([]expr.Expression, len(cs))
		for i, c := range cs {
			shifted[i] = remap(c, func(i int) int { return i + off })
		}
		ex, changed, err := o.expand(g, shifted)
		if err != nil || !changed {
			return cs, err
		}
		expanded = true
		out := make([]expr.Expression, len(ex))
		for i, c := range ex {
			out[i] = remap(c, func(i int) int { return i - off })
		}
		return out, nil
	}
	switch j := r.(type) {
	case *splan.FilterRel:
		if j.OutputMapping() == nil && isRegionJoin(j.Input()) {
			cs, err := own(j.Condition())
			if err != nil {
				return nil, err
			}
			own, stay := placeable(cs)
			in, err := o.push(g, j.Input(), off, append(conds, own...))
			if err != nil {
				return nil, err
			}
			if len(own) == 0 && in == j.Input() && !expanded {
				return r, nil
			}
			if len(stay) == 0 {
				return in, nil
			}
			cond, err := o.and(stay)
			if err != nil {
				return nil, err
			}
			out, err := o.b.Filter(in, cond)
			return out, wrapInternal(err)
		}
	case *splan.CrossRel, *splan.JoinRel:
		if !isRegionJoin(r) {
			break
		}
		in := r.GetInputs()
		nl := width(in[0])
		var lc, rc, on []expr.Expression
		all := conds
		if jr, ok := r.(*splan.JoinRel); ok {
			cs, err := own(jr.Expr())
			if err != nil {
				return nil, err
			}
			post, err := own(jr.PostJoinFilter())
			if err != nil {
				return nil, err
			}
			all = append(append(cs, post...), conds...)
		}
		for _, c := range all {
			left, right := false, false
			if !columns(c, func(i int) {
				if i < nl {
					left = true
				} else {
					right = true
				}
			}) || left == right {
				on = append(on, c) // both sides, or not placeable: stays here
				continue
			}
			if left {
				lc = append(lc, c)
			} else {
				rc = append(rc, remap(c, func(i int) int { return i - nl }))
			}
		}
		l, err := o.push(g, in[0], off, lc)
		if err != nil {
			return nil, err
		}
		rr, err := o.push(g, in[1], off+nl, rc)
		if err != nil {
			return nil, err
		}
		if len(conds) == 0 && len(lc) == 0 && len(rc) == 0 && l == in[0] && rr == in[1] && !expanded {
			return r, nil
		}
		if len(on) == 0 {
			out, err := o.b.Cross(l, rr)
			return out, wrapInternal(err)
		}
		cond, err := o.and(on)
		if err != nil {
			return nil, err
		}
		out, err := o.b.Join(l, rr, cond, splan.JoinTypeInner)
		return out, wrapInternal(err)
	}
	opt, err := o.rewrite(r)
	if err != nil {
		return nil, err
	}
	return o.filterThrough(opt, conds)
}

// keyless counts the joins of the region at r that have no hash key (an
// equality between their inputs): cross products and nested loop joins,
// whose cost grows with the product of their inputs.
func keyless(r splan.Rel) int {
	switch j := r.(type) {
	case *splan.FilterRel:
		if j.OutputMapping() == nil {
			return keyless(j.Input())
		}
	case *splan.ProjectRel:
		return keyless(j.Input())
	case *splan.CrossRel:
		if isRegionJoin(j) {
			return 1 + keyless(j.Left()) + keyless(j.Right())
		}
	case *splan.JoinRel:
		if isRegionJoin(j) {
			n := 1
			nl := width(j.Left())
			for _, c := range conjuncts(j.Expr()) {
				if isEquiBetween(c, nl) {
					n = 0
					break
				}
			}
			return n + keyless(j.Left()) + keyless(j.Right())
		}
	}
	return 0
}

// buildRows is the estimated rows the hash joins of the region at r
// build: each join builds its right input (the planner swaps only semi,
// anti and outer joins, plan/buildside.go).
func (x estimator) buildRows(r splan.Rel) float64 {
	switch j := r.(type) {
	case *splan.FilterRel:
		if j.OutputMapping() == nil {
			return x.buildRows(j.Input())
		}
	case *splan.ProjectRel:
		return x.buildRows(j.Input())
	case *splan.CrossRel, *splan.JoinRel:
		if isRegionJoin(r) {
			in := r.GetInputs()
			return x.rows(in[1]).rows + x.buildRows(in[0]) + x.buildRows(in[1])
		}
	}
	return 0
}

// unordered reports whether the region at r holds a cross product: its
// producer wrote a FROM list (FROM a, b WHERE ..., as the SQL front end,
// Isthmus and DuckDB write it) and left the order of its joins open.
func unordered(r splan.Rel) bool {
	switch j := r.(type) {
	case *splan.FilterRel:
		return j.OutputMapping() == nil && isRegionJoin(j.Input()) && unordered(j.Input())
	case *splan.CrossRel:
		return isRegionJoin(j)
	case *splan.JoinRel:
		return isRegionJoin(j) && (unordered(j.Left()) || unordered(j.Right()))
	}
	return false
}
