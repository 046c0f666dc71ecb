package optimize

import (
	"testing"

	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// leftOver is (a JOIN b ON a.k = b.k) LEFT JOIN c ON b.v = c.k filtered
// by conds (over its columns: a.k a.v b.k b.v c.k c.v): Q72's shape, a
// WHERE over an outer join over inner joins.
func (f *fixture) leftOver(conds func(x splan.Rel) []expr.Expression) splan.Rel {
	a, b, c := f.scan("a"), f.scan("b"), f.scan("c")
	ab := must(f.b.Join(a, b, f.fn(cmpURN, "equal", must(f.b.JoinedRecordFieldRef(a, b, 0)), must(f.b.JoinedRecordFieldRef(a, b, 2))), splan.JoinTypeInner))
	abc := must(f.b.Join(ab, c, f.fn(cmpURN, "equal", must(f.b.JoinedRecordFieldRef(ab, c, 3)), must(f.b.JoinedRecordFieldRef(ab, c, 4))), splan.JoinTypeLeft))
	cs := conds(abc)
	cond := cs[0]
	if len(cs) > 1 {
		cond = f.fn(boolURN, "and", cs...)
	}
	return must(f.b.Filter(abc, cond))
}

// ordered is sizes where the producer's order (a probing b) is kept.
var ordered = rows{"a": 1000, "b": 100, "c": 10}

func (f *fixture) lt3(x splan.Rel, c int32) expr.Expression {
	return f.fn(cmpURN, "lt", f.ref(x, c), expr.NewPrimitiveLiteral(int64(3), true))
}

// TestOuterPushPreserved: a conjunct over the preserved side (a.v < 3)
// filters a below the LEFT join; one over the nullable side that is not
// strict (c.v IS NULL: true for the NULL-extended rows) stays above it.
func TestOuterPushPreserved(t *testing.T) {
	f := newFixture(t)
	r := f.leftOver(func(x splan.Rel) []expr.Expression {
		return []expr.Expression{f.lt3(x, 1), f.fn(cmpURN, "is_null", f.ref(x, 5))}
	})
	if s := shape(f.joins(r, ordered)); s != "F(L(J(F(a),b),c))" {
		t.Fatalf("shape %s, want a filtered below the LEFT join, c.v IS NULL above it", s)
	}
}

// TestOuterReducedByStrict: c.v < 3 is NULL for a NULL-extended row, so
// the LEFT join is an inner one (reduce_outer_joins), and c joins the
// region with its filter.
func TestOuterReducedByStrict(t *testing.T) {
	f := newFixture(t)
	r := f.leftOver(func(x splan.Rel) []expr.Expression {
		return []expr.Expression{f.lt3(x, 5)}
	})
	if s := shape(f.joins(r, ordered)); s != "J(J(a,b),F(c))" {
		t.Fatalf("shape %s, want the LEFT join inner, c filtered", s)
	}
}

// TestOuterKeptNonStrict: conjuncts over the nullable side that can be
// true for a NULL c.v keep the LEFT join: IS NULL, COALESCE, and an OR
// with an arm over the preserved side (which also cannot be pushed
// there: it reads c).
func TestOuterKeptNonStrict(t *testing.T) {
	for name, cond := range map[string]func(f *fixture, x splan.Rel) expr.Expression{
		"is_null": func(f *fixture, x splan.Rel) expr.Expression { return f.fn(cmpURN, "is_null", f.ref(x, 5)) },
		"coalesce": func(f *fixture, x splan.Rel) expr.Expression {
			return f.fn(cmpURN, "lt", f.fn(cmpURN, "coalesce", f.ref(x, 5), expr.NewPrimitiveLiteral(int64(0), true)), expr.NewPrimitiveLiteral(int64(3), true))
		},
		"or": func(f *fixture, x splan.Rel) expr.Expression { return f.fn(boolURN, "or", f.lt3(x, 5), f.lt3(x, 1)) },
	} {
		f := newFixture(t)
		r := f.leftOver(func(x splan.Rel) []expr.Expression { return []expr.Expression{cond(f, x)} })
		if s := shape(f.joins(r, ordered)); s != "F(L(J(a,b),c))" {
			t.Errorf("%s: shape %s, want the LEFT join kept under its filter", name, s)
		}
	}
}

// TestOuterStrictOr: an OR whose every arm is strict in c (c.v < 3 OR
// c.k = 1) rejects the NULL-extended rows too: the join is inner.
func TestOuterStrictOr(t *testing.T) {
	f := newFixture(t)
	r := f.leftOver(func(x splan.Rel) []expr.Expression {
		return []expr.Expression{f.fn(boolURN, "or", f.lt3(x, 5), f.fn(cmpURN, "equal", f.ref(x, 4), expr.NewPrimitiveLiteral(int64(1), true)))}
	})
	if s := shape(f.joins(r, ordered)); s != "J(J(a,b),F(c))" {
		t.Fatalf("shape %s, want the LEFT join inner", s)
	}
}

// TestOuterUnderRegion: a WHERE over an inner join over a LEFT join
// (a LEFT JOIN c ON a.k = c.k JOIN b ON a.v = b.k WHERE a.v < 3 AND
// c.v < 3): the region places a.v < 3 and c.v < 3 on its LEFT join node,
// and they move through it as a filter written over it does: a.v < 3
// filters a, c.v < 3 makes the join inner.
func TestOuterUnderRegion(t *testing.T) {
	f := newFixture(t)
	a, b, c := f.scan("a"), f.scan("b"), f.scan("c")
	ac := must(f.b.Join(a, c, f.fn(cmpURN, "equal", must(f.b.JoinedRecordFieldRef(a, c, 0)), must(f.b.JoinedRecordFieldRef(a, c, 2))), splan.JoinTypeLeft))
	acb := must(f.b.Join(ac, b, f.fn(cmpURN, "equal", must(f.b.JoinedRecordFieldRef(ac, b, 1)), must(f.b.JoinedRecordFieldRef(ac, b, 4))), splan.JoinTypeInner))
	r := must(f.b.Filter(acb, f.fn(boolURN, "and", f.lt3(acb, 1), f.lt3(acb, 3))))
	if s := shape(f.joins(r, ordered)); s != "J(J(F(a),F(c)),b)" {
		t.Fatalf("shape %s, want a and c filtered, their join inner", s)
	}
}
