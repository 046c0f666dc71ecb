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
