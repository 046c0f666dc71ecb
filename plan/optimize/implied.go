package optimize

import (
	"slices"

	"github.com/substrait-io/substrait-go/v8/expr"
)

// implied is the filter on node i that an OR conjunct over several nodes
// implies: the OR of each branch's conjuncts over i alone, or nil when
// some branch has none (then any row of i may satisfy that branch). This
// is PostgreSQL's extract_restriction_or_clauses (orclauses.c). From
//
//	(n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY') OR
//	(n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE')
//
// it derives n1.n_name = 'FRANCE' OR n1.n_name = 'GERMANY' for n1 (TPC-H
// Q7), and from Q19's three branches the part and the lineitem rows any
// branch could keep. Where the OR is true some branch is, so all that
// branch's conjuncts are and so is the derived filter: it only removes
// rows of i the OR would reject, and the OR itself stays (as a join
// condition), so the rows kept are the same. nodesOf names the nodes a
// conjunct reads (ok false: it reads an outer column or a subquery).
func (o *optimizer) implied(c expr.Expression, i int, nodesOf func(expr.Expression) ([]int, bool)) (expr.Expression, error) {
	arms := disjuncts(c)
	if len(arms) < 2 {
		return nil, nil
	}
	ors := make([]expr.Expression, 0, len(arms))
	for _, br := range arms {
		var own []expr.Expression
		for _, x := range conjuncts(br) {
			if set, ok := nodesOf(x); ok && len(set) == 1 && set[0] == i {
				own = append(own, x)
			}
		}
		if len(own) == 0 {
			return nil, nil
		}
		a, err := o.and(own)
		if err != nil {
			return nil, err
		}
		ors = append(ors, a)
	}
	return o.or(ors)
}

// expand is the region's conjuncts cs (over the region's columns) with
// their ORs factored (factorOr) and, after each OR over several nodes of
// g, the filter it implies on each of them (implied), which the pushdown
// then places on that node. changed is false when there is nothing to
// factor or imply: out is cs.
func (o *optimizer) expand(g *graph, cs []expr.Expression) (out []expr.Expression, changed bool, err error) {
	fs, err := o.factorOr(cs)
	if err != nil {
		return nil, false, err
	}
	changed = len(fs) != len(cs) || (len(cs) > 0 && &fs[0] != &cs[0])
	cs = fs
	for k, c := range cs {
		set, ok := g.nodesOf(c)
		if !ok || len(set) < 2 || len(disjuncts(c)) < 2 {
			if out != nil {
				out = append(out, c)
			}
			continue
		}
		for _, i := range set {
			f, err := o.implied(c, i, g.nodesOf)
			if err != nil {
				return nil, false, err
			}
			if f == nil {
				continue
			}
			if out == nil {
				out = slices.Clone(cs[:k])
			}
			out = append(out, f)
		}
		if out != nil {
			out = append(out, c)
		}
	}
	if out == nil {
		return cs, changed, nil
	}
	return out, true, nil
}
