package optimize

import (
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/proto"
)

// Twins: nodes of one region that are the same relation byte for byte
// and hold a join, an aggregation or a set operation (a WITH query the
// front end lowered at each reference: TPC-DS Q64's cross_sales, read as
// cs1 and cs2) are computed once, as one shared subplan (plan/shared.go),
// as long as they stay byte-equal. Moving each one's own conjuncts into
// it (sink.go) would make them differ and compute the 18-table join
// twice (Q64: 190 -> 348 ms). So, as DuckDB does for a materialized
// CTE, the OR of the twins' conjunct sets moves into each one, the same
// expression into the same relation, and each twin's own conjuncts stay
// above it:
//
//	Filter(cs1, y = 1999)      Filter(sink(cs, y = 1999 OR y = 2000), y = 1999)
//	Filter(cs2, y = 2000)  ->  Filter(sink(cs, y = 1999 OR y = 2000), y = 2000)
//
// A row a twin's conjuncts keep satisfies the OR, so the OR keeps it.
// When a twin has no conjunct of its own the OR keeps every row; then
// none is moved in and the twins stay as they are, shared.

// twins places the conjuncts of g's twin nodes into rels (see above) and
// reports the nodes it placed. A twin is compared as written, before the
// rewrite, without a filter directly over it (the front end writes a
// WHERE conjunct over one FROM item there), whose conjuncts count as its
// own.
func (o *optimizer) twins(g *graph, rels []splan.Rel) (map[int]bool, error) {
	type twin struct {
		bare    splan.Rel
		filters []expr.Expression
	}
	ts := make([]twin, len(g.nodes))
	groups := map[string][]int{}
	var order []string
	for i, n := range g.nodes {
		t := twin{bare: n.orig, filters: n.filters}
		if f, ok := n.orig.(*splan.FilterRel); ok && f.OutputMapping() == nil {
			t = twin{bare: f.Input(), filters: append(conjuncts(f.Condition()), n.filters...)}
		}
		if t.bare == nil || !holdsWork(t.bare) {
			continue
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(t.bare.ToProto())
		if err != nil {
			continue
		}
		ts[i] = t
		k := string(b)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	placed := map[int]bool{}
	for _, k := range order {
		members := groups[k]
		if len(members) < 2 || sameFilters(ts[members[0]].filters, members, func(i int) []expr.Expression { return ts[i].filters }) {
			continue // alone, or twins filtered alike stay alike
		}
		var arms []expr.Expression
		moveIn := true
		for _, i := range members {
			if len(ts[i].filters) == 0 {
				moveIn = false
				break
			}
			a, err := o.and(ts[i].filters)
			if err != nil {
				return nil, err
			}
			if !containsExpr(arms, a) {
				arms = append(arms, a)
			}
		}
		var shared []expr.Expression
		if moveIn {
			or, err := o.or(arms)
			if err != nil {
				return nil, err
			}
			shared = []expr.Expression{or}
		}
		for _, i := range members {
			// The OR over the twin as written, rewritten whole, so its
			// joins are ordered with the OR placed.
			in, err := o.filter(ts[i].bare, shared)
			if err != nil {
				return nil, err
			}
			if in, err = o.rewrite(in); err != nil {
				return nil, err
			}
			if rels[i], err = o.filter(in, ts[i].filters); err != nil {
				return nil, err
			}
			placed[i] = true
		}
	}
	return placed, nil
}

// sameFilters reports whether every member's conjuncts (of) are first's.
func sameFilters(first []expr.Expression, members []int, of func(int) []expr.Expression) bool {
	for _, i := range members[1:] {
		fs := of(i)
		if len(fs) != len(first) {
			return false
		}
		for _, e := range fs {
			if !containsExpr(first, e) {
				return false
			}
		}
	}
	return true
}

// holdsWork reports whether r or a relation under it is a join, a cross
// product, an aggregation or a set operation: a relation worth computing
// once for its twins (plan/shared.go shares only those).
func holdsWork(r splan.Rel) bool {
	switch r.(type) {
	case *splan.JoinRel, *splan.CrossRel, *splan.AggregateRel, *splan.SetRel:
		return true
	}
	for _, in := range r.GetInputs() {
		if holdsWork(in) {
			return true
		}
	}
	return false
}
