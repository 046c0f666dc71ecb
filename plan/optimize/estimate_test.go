package optimize

import (
	"testing"

	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// TestEstimated: the exported estimate, for the physical planner's
// build-side choice, is the one join ordering uses (a key join keeps the
// smaller side's fraction of the larger, a join without a key is the
// product, a quarter per conjunct), and is known only when every table
// it reads is counted.
func TestEstimated(t *testing.T) {
	f := newFixture(t)
	a, b := f.scan("a"), f.scan("b")
	key := must(f.b.Join(a, b, f.fn(cmpURN, "equal", must(f.b.JoinedRecordFieldRef(a, b, 0)), must(f.b.JoinedRecordFieldRef(a, b, 2))), splan.JoinTypeInner))
	lt := must(f.b.Join(a, b, f.fn(cmpURN, "lt", must(f.b.JoinedRecordFieldRef(a, b, 1)), must(f.b.JoinedRecordFieldRef(a, b, 3))), splan.JoinTypeInner))
	filtered := must(f.b.Filter(b, f.fn(cmpURN, "lt", f.ref(b, 1), expr.NewPrimitiveLiteral(int64(3), true))))
	for _, c := range []struct {
		name string
		r    splan.Rel
		want Estimate
	}{
		{"table", b, Estimate{Rows: 1000, Frac: 1}},
		{"filter", filtered, Estimate{Rows: 250, Frac: 0.25}},
		{"key join", key, Estimate{Rows: 1000, Frac: 1}},
		{"join without a key", lt, Estimate{Rows: 2500, Frac: 0.25}},
	} {
		got, known := Estimated(c.r, sizes)
		if !known || got != c.want {
			t.Errorf("%s: %+v known=%v, want %+v known", c.name, got, known, c.want)
		}
	}
	if _, known := Estimated(key, rows{"a": 10}); known {
		t.Error("b is not counted: the estimate must not be known")
	}
	if _, known := Estimated(f.scan("a"), nil); known {
		t.Error("no stats: the estimate must not be known")
	}
}

// TestRangeOneRestriction: a lower and an upper bound on the same column
// (BETWEEN, or x >= a AND x < b, either side written first) are one
// range, a quarter, as PostgreSQL's clauselist_selectivity pairs them;
// bounds on two columns, or two lower bounds, are two restrictions.
func TestRangeOneRestriction(t *testing.T) {
	f := newFixture(t)
	b := f.scan("b")
	cmp := func(fn string, l, r expr.Expression) expr.Expression { return f.fn(cmpURN, fn, l, r) }
	v, k, one, five := f.ref(b, 1), f.ref(b, 0), expr.NewPrimitiveLiteral(int64(1), true), expr.NewPrimitiveLiteral(int64(5), true)
	for _, c := range []struct {
		name string
		cs   []expr.Expression
		want float64
	}{
		{"v >= 1 AND v < 5", []expr.Expression{cmp("gte", v, one), cmp("lt", v, five)}, 250},
		{"1 <= v AND v <= 5", []expr.Expression{cmp("lte", one, v), cmp("lte", v, five)}, 250},
		{"v >= 1 AND k < 5", []expr.Expression{cmp("gte", v, one), cmp("lt", k, five)}, 62.5},
		{"v >= 1 AND v > 5", []expr.Expression{cmp("gte", v, one), cmp("gt", v, five)}, 62.5},
	} {
		got, _ := Estimated(must(f.b.Filter(b, f.fn(boolURN, "and", c.cs...))), sizes)
		if got.Rows != c.want {
			t.Errorf("%s: %v rows, want %v", c.name, got.Rows, c.want)
		}
	}
}

// TestKeyJoinKeepsFilteredFactRows: b (1000 rows) filtered by four
// conjuncts (3.9 rows, 1/256 of its table) key-joined with the
// unfiltered a (10 rows) keeps b's 3.9 rows, as a foreign key from the
// larger table meets the smaller's key; comparing the inputs' rows made
// a, the larger input, keep b's fraction: 0.04 rows. The estimate is
// the same with the inputs swapped.
func TestKeyJoinKeepsFilteredFactRows(t *testing.T) {
	f := newFixture(t)
	a, b := f.scan("a"), f.scan("b")
	lit := func(n int64) expr.Expression { return expr.NewPrimitiveLiteral(n, true) }
	fb := must(f.b.Filter(b, f.fn(boolURN, "and",
		f.fn(cmpURN, "lt", f.ref(b, 0), lit(3)), f.fn(cmpURN, "lt", f.ref(b, 1), lit(3)),
		f.fn(cmpURN, "equal", f.ref(b, 0), lit(1)), f.fn(cmpURN, "equal", f.ref(b, 1), lit(2)))))
	for _, lr := range [][2]splan.Rel{{a, fb}, {fb, a}} {
		l, r := lr[0], lr[1]
		j := must(f.b.Join(l, r, f.fn(cmpURN, "equal", must(f.b.JoinedRecordFieldRef(l, r, 0)), must(f.b.JoinedRecordFieldRef(l, r, 2))), splan.JoinTypeInner))
		if got, _ := Estimated(j, sizes); got.Rows != 1000.0/256 {
			t.Errorf("%s ⋈ %s: %v rows, want %v", shape(l), shape(r), got.Rows, 1000.0/256)
		}
	}
}
