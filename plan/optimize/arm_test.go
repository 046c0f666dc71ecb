package optimize

import (
	"testing"

	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// TestArm: b joins the probe a by a key and brings its arm: c, filtered,
// hangs off b alone and is joined into b's build side first; d, hanging
// off b too but unfiltered (it keeps every row of b), is not, and joins
// the tree after. Columns: a.k a.v b.k b.v c.k c.v d.k d.v.
func TestArm(t *testing.T) {
	f := newFixture(t)
	r := f.crosses(func(x splan.Rel) []expr.Expression {
		lt := f.fn(cmpURN, "lt", f.ref(x, 5), expr.NewPrimitiveLiteral(int64(3), true)) // c.v < 3
		return []expr.Expression{f.eq(x, 0, 2), f.eq(x, 3, 4), f.eq(x, 3, 6), lt}
	}, "a", "b", "c", "d")
	if s := shape(f.joins(r, rows{"a": 1000, "b": 100, "c": 50, "d": 5})); s != "J(J(a,J(b,F(c))),d)" {
		t.Fatalf("shape %s, want a probing b ⋈ filtered c, then d", s)
	}
}

// TestLargerProbes: TPC-DS Q37's shape. Greedy's order starts from the
// largest filtered node a (inventory) and joins b (item) and c
// (date_dim), filtered, into it; d (catalog_sales, unfiltered), meeting
// the others only through b's key, joins last and, as greedy's build
// side, was built whole (1.4M rows) for the few the rest kept to probe
// it. The larger input probes instead: d ⋈ (the rest). Columns: a.k a.v
// b.k b.v c.k c.v d.k d.v.
func TestLargerProbes(t *testing.T) {
	f := newFixture(t)
	r := f.crosses(func(x splan.Rel) []expr.Expression {
		lt := func(col int32) expr.Expression {
			return f.fn(cmpURN, "lt", f.ref(x, col), expr.NewPrimitiveLiteral(int64(3), true))
		}
		return []expr.Expression{f.eq(x, 0, 2), f.eq(x, 1, 4), f.eq(x, 6, 2), lt(1), lt(3), lt(5)}
	}, "a", "b", "c", "d")
	if s := shape(f.joins(r, rows{"a": 11_745_000, "b": 18_000, "c": 73_049, "d": 1_441_548})); s != "P(J(d,J(J(F(a),F(b)),F(c))))" {
		t.Fatalf("shape %s, want d probing the join of filtered a, b and c", s)
	}
}
