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
