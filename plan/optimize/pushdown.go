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
// r itself when nothing moved.
func (o *optimizer) push(r splan.Rel, conds []expr.Expression) (splan.Rel, error) {
	switch j := r.(type) {
	case *splan.FilterRel:
		if j.OutputMapping() == nil && isRegionJoin(j.Input()) {
			own, stay := placeable(conjuncts(j.Condition()))
			in, err := o.push(j.Input(), append(conds, own...))
			if err != nil {
				return nil, err
			}
			if len(own) == 0 && in == j.Input() {
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
			all = append(append(conjuncts(jr.Expr()), conjuncts(jr.PostJoinFilter())...), conds...)
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
		l, err := o.push(in[0], lc)
		if err != nil {
			return nil, err
		}
		rr, err := o.push(in[1], rc)
		if err != nil {
			return nil, err
		}
		if len(conds) == 0 && len(lc) == 0 && len(rc) == 0 && l == in[0] && rr == in[1] {
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
	return o.filter(opt, conds)
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
