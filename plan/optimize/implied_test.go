package optimize

import (
	"testing"

	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// filterConjuncts counts the conjuncts of the filters directly over the
// named table's read in r.
func filterConjuncts(r splan.Rel, table string) int {
	if f, ok := r.(*splan.FilterRel); ok {
		if t, ok := f.Input().(*splan.NamedTableReadRel); ok && t.Names()[0] == table {
			return len(conjuncts(f.Condition()))
		}
	}
	n := 0
	for _, x := range r.GetInputs() {
		n += filterConjuncts(x, table)
	}
	return n
}

// q7 is TPC-H Q7's shape over cross(a, b): a.k = b.k AND ((a.v = 1 AND
// b.v = 2) OR (a.v = 3 AND b.v = 4)).
func (f *fixture) q7() splan.Rel {
	return f.crosses(func(x splan.Rel) []expr.Expression {
		is := func(i int32, v int64) expr.Expression { return f.fn(cmpURN, "equal", f.ref(x, i), lit(v)) }
		return []expr.Expression{f.eq(x, 0, 2), f.or(f.and(is(1, 1), is(3, 2)), f.and(is(1, 3), is(3, 4)))}
	}, "a", "b")
}

// TestImpliedFilters: the OR over a and b implies a.v = 1 OR a.v = 3 on
// a and b.v = 2 OR b.v = 4 on b; each filters its table before the join
// (without the rule neither is filtered), and the OR stays as a
// condition of the join.
func TestImpliedFilters(t *testing.T) {
	f := newFixture(t)
	got := f.joins(f.q7(), sizes)
	if s := shape(got); s != "P(J(F(b),F(a)))" {
		t.Fatalf("shape %s, want both tables filtered", s)
	}
	if na, nb := filterConjuncts(got, "a"), filterConjuncts(got, "b"); na != 1 || nb != 1 {
		t.Fatalf("a filtered by %d conjuncts, b by %d: want one each", na, nb)
	}
	j := got.(*splan.ProjectRel).Input().(*splan.JoinRel)
	if n := len(conjuncts(j.Expr())); n != 2 {
		t.Fatalf("the join has %d conjuncts, want the key and the OR", n)
	}
}

// TestImpliedOnce: a filter the producer already wrote on a (the SQL
// front end derives it itself) is not added a second time.
func TestImpliedOnce(t *testing.T) {
	f := newFixture(t)
	r := f.q7()
	first := f.joins(r, sizes)
	again := f.joins(first, sizes)
	if na := filterConjuncts(again, "a"); na != 1 {
		t.Fatalf("a filtered by %d conjuncts after a second pass, want 1", na)
	}
}

// TestImpliedRule: a branch with no conjunct over the node implies
// nothing for it.
func TestImpliedRule(t *testing.T) {
	f := newFixture(t)
	x := must(f.b.Cross(f.scan("a"), f.scan("b")))
	o := newOptimizer(t, sizes)
	g := &graph{nodes: []*node{{off: 0, width: 2}, {off: 2, width: 2}}, width: 4}
	c := f.or(f.and(f.lt(x, 1, 1), f.lt(x, 3, 2)), f.lt(x, 3, 4))
	if e := must(o.implied(c, 0, g.nodesOf)); e != nil {
		t.Fatalf("a: got %v, want nothing (the second branch does not read a)", e)
	}
	e := must(o.implied(c, 1, g.nodesOf))
	if e == nil || len(disjuncts(e)) != 2 {
		t.Fatalf("b: got %v, want b.v < 2 OR b.v < 4", e)
	}
}
