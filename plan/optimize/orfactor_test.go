package optimize

import (
	"context"
	"testing"

	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// lit is an i64 literal.
func lit(v int64) expr.Expression { return expr.NewPrimitiveLiteral(v, true) }

// lt is column i of r below v.
func (f *fixture) lt(r splan.Rel, i int32, v int64) expr.Expression {
	return f.fn(cmpURN, "lt", f.ref(r, i), lit(v))
}

func (f *fixture) and(es ...expr.Expression) expr.Expression { return f.fn(boolURN, "and", es...) }
func (f *fixture) or(es ...expr.Expression) expr.Expression  { return f.fn(boolURN, "or", es...) }

// newOptimizer is a pass over st, as Joins makes it.
func newOptimizer(t *testing.T, st Stats) *optimizer {
	t.Helper()
	o := &optimizer{ctx: context.Background(), est: estimator{st: st}, b: newFixture(t).b, done: map[splan.Rel]splan.Rel{}}
	return o
}

// joinKeys counts the inner joins of r with a hash key (an equality
// between their inputs).
func joinKeys(r splan.Rel) int {
	n := 0
	if j, ok := r.(*splan.JoinRel); ok && j.Type() == splan.JoinTypeInner {
		for _, c := range conjuncts(j.Expr()) {
			if isEquiBetween(c, width(j.Left())) {
				n++
				break
			}
		}
	}
	for _, x := range r.GetInputs() {
		n += joinKeys(x)
	}
	return n
}

// TestFactorOrJoinKey: TPC-H Q19's shape, cross(a, b) filtered by
// (a.k = b.k AND a.v < 3) OR (a.k = b.k AND b.v < 5): the key every
// branch shares comes out of the OR, so the cross product becomes a hash
// join on it (without the factoring no conjunct is an equality: a nested
// loop join over 10 × 1000 rows), the larger b probing.
func TestFactorOrJoinKey(t *testing.T) {
	f := newFixture(t)
	r := f.crosses(func(x splan.Rel) []expr.Expression {
		return []expr.Expression{f.or(f.and(f.eq(x, 0, 2), f.lt(x, 1, 3)), f.and(f.eq(x, 0, 2), f.lt(x, 3, 5)))}
	}, "a", "b")
	got := f.joins(r, sizes)
	if s := shape(got); s != "P(J(b,a))" {
		t.Fatalf("shape %s, want b probed by a", s)
	}
	if n, k := joinKeys(got), keyless(got); n != 1 || k != 0 {
		t.Fatalf("%d key joins, %d without a key: want the join on a.k = b.k", n, k)
	}
}

// TestFactorOrRule: the rule alone. A conjunct without an OR, and an OR
// whose branches share nothing, are kept as they are (the same slice);
// A ∨ (A ∧ C) is A; (A ∧ B) ∨ (C ∧ A) is A, B ∨ C.
func TestFactorOrRule(t *testing.T) {
	f := newFixture(t)
	x := must(f.b.Cross(f.scan("a"), f.scan("b")))
	o := newOptimizer(t, sizes)
	A, B, C := f.eq(x, 0, 2), f.lt(x, 1, 3), f.lt(x, 3, 5)
	same := []expr.Expression{A, f.or(B, C)}
	if out := must(o.factorOr(same)); &out[0] != &same[0] || len(out) != 2 {
		t.Fatalf("nothing to factor: got %v, want the same slice", out)
	}
	if out := must(o.factorOr([]expr.Expression{f.or(A, f.and(A, C))})); len(out) != 1 || !sameExpr(out[0], A) {
		t.Fatalf("A OR (A AND C): got %v, want A", out)
	}
	out := must(o.factorOr([]expr.Expression{f.or(f.and(A, B), f.and(C, A))}))
	if len(out) != 2 || !sameExpr(out[0], A) {
		t.Fatalf("(A AND B) OR (C AND A): got %v, want A, B OR C", out)
	}
	if arms := disjuncts(out[1]); len(arms) != 2 || !sameExpr(arms[0], B) || !sameExpr(arms[1], C) {
		t.Fatalf("the rest: got %v, want B OR C", out[1])
	}
}

// TestFactorOrNested: Isthmus writes an OR of three branches as nested
// binary ORs; the common key is found across all three.
func TestFactorOrNested(t *testing.T) {
	f := newFixture(t)
	x := must(f.b.Cross(f.scan("a"), f.scan("b")))
	o := newOptimizer(t, sizes)
	A := f.eq(x, 0, 2)
	c := f.or(f.or(f.and(A, f.lt(x, 1, 1)), f.and(A, f.lt(x, 1, 2))), f.and(A, f.lt(x, 1, 3)))
	out := must(o.factorOr([]expr.Expression{c}))
	if len(out) != 2 || !sameExpr(out[0], A) || len(disjuncts(out[1])) != 3 {
		t.Fatalf("got %v, want A and an OR of three", out)
	}
}
