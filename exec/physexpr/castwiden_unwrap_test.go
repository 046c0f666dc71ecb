package physexpr_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/stablerow/stablerow/exec/physexpr"
)

// TestUnwrapWidening: a widening decimal cast of the same scale against a
// constant the narrower type holds is dropped, the constant retyped; any
// other shape (a rescale, a narrowing cast, a constant beyond the
// narrower precision, a cast of a non-decimal) is left as it is.
func TestUnwrapWidening(t *testing.T) {
	d := func(p, s int32) arrow.DataType { return &arrow.Decimal128Type{Precision: p, Scale: s} }
	sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: d(7, 2), Nullable: true}, {Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
	x := physexpr.Col{Index: 0, Name: "x"}
	lit := func(v int64, t arrow.DataType) physexpr.Lit {
		return physexpr.Lit{Value: decimal128.FromI64(v), Type: t}
	}
	for _, c := range []struct {
		l, r   physexpr.Expr
		unwrap bool
	}{
		{physexpr.Cast{E: x, To: d(12, 2)}, lit(100, d(12, 2)), true},
		{lit(-9999999, d(12, 2)), physexpr.Cast{E: x, To: d(12, 2)}, true},  // the constant on the left, at the bound
		{physexpr.Cast{E: x, To: d(12, 2)}, lit(10000000, d(12, 2)), false}, // 8 digits: beyond numeric(7,2)
		{physexpr.Cast{E: x, To: d(12, 3)}, lit(1000, d(12, 3)), false},     // a rescale
		{physexpr.Cast{E: x, To: d(6, 2)}, lit(100, d(6, 2)), false},        // narrowing: may raise
		{physexpr.Cast{E: physexpr.Col{Index: 1, Name: "i"}, To: d(20, 0)}, lit(1, d(20, 0)), false},
		{physexpr.Cast{E: x, To: d(12, 2)}, physexpr.Col{Index: 0, Name: "x"}, false},
	} {
		l, r := physexpr.UnwrapWidening(c.l, c.r, sc)
		got := l != c.l || r != c.r
		if got != c.unwrap {
			t.Fatalf("%s, %s: unwrapped %v (%s, %s)", c.l, c.r, got, l, r)
		}
		if !got {
			continue
		}
		col, k := l, r
		if _, ok := col.(physexpr.Col); !ok {
			col, k = r, l
		}
		kl, ok := k.(physexpr.Lit)
		if col != physexpr.Expr(x) || !ok || !arrow.TypeEqual(kl.Type, d(7, 2)) {
			t.Fatalf("%s, %s: unwrapped to %s, %s", c.l, c.r, l, r)
		}
	}
}
