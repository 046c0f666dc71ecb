package plan_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/internal/deepsql"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// linearShapes are the deep and long statements of internal/deepsql whose
// planning was quadratic (issue 32), each at a size n that plans in
// milliseconds now and that doubled shows the growth: nestings (each
// level's type was found by binding the whole tree below it) and flat
// lists (CASE arms and call arguments were unified pairwise).
var linearShapes = []struct {
	c        deepsql.Class
	shape, n int
}{
	{deepsql.Compare, 0, 200},
	{deepsql.Concat, 0, 400},
	{deepsql.Concat, 2, 400},
	{deepsql.Case, 2, 200},
	{deepsql.Func, 0, 400},
	{deepsql.Func, 2, 400},
	{deepsql.Mixed, 1, 200},
	{deepsql.Case, 3, 2000}, // CASE 1 WHEN 2 THEN 1 ... of n arms
	{deepsql.Func, 3, 2000}, // greatest(1, 1, ...) of n arguments
	{deepsql.Union, 0, 400},
	{deepsql.Union, 2, 400},
}

// lowered is statement q of deepsql lowered to Substrait.
func lowered(t testing.TB, q string) *substraitpb.Plan {
	t.Helper()
	stmts, err := sql.Parse(q, nil)
	if err != nil {
		t.Fatal(err)
	}
	return stmts[0].(*sql.Query).Plan
}

// TestPlanningLinear: planning a statement twice as deep or as long
// allocates about twice as much, not four times (issue 32: a 50 KB
// statement held the server for minutes). Allocations count the work
// without timing it.
func TestPlanningLinear(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	for _, s := range linearShapes {
		t.Run(fmt.Sprintf("%v/%d", s.c, s.shape), func(t *testing.T) {
			build := func(n int) float64 {
				pb := lowered(t, deepsql.Statement(s.c, n, s.shape))
				return testing.AllocsPerRun(1, func() {
					if _, err := plan.Build(context.Background(), pb, c, plan.Options{}); err != nil {
						t.Fatal(err)
					}
				})
			}
			a, b := build(s.n), build(2*s.n)
			t.Logf("%d: %.0f allocations, %d: %.0f (x%.2f)", s.n, a, 2*s.n, b, b/a)
			if b > 2.6*a {
				t.Errorf("planning allocates %.0f at %d and %.0f at %d: x%.2f for twice the size, want about 2", a, s.n, b, 2*s.n, b/a)
			}
		})
	}
}

// TestSubstraitPlanningLinear: the same for plans that come as Substrait
// (no SQL front end): an expression nested n levels deep (add, cast,
// if-then: deepPlan), the deepest of which is about a third of
// MaxPlanDepth, planned with n and 2n levels.
func TestSubstraitPlanningLinear(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	for shape := range 3 {
		t.Run(fmt.Sprint(shape), func(t *testing.T) {
			build := func(n int) float64 {
				pb := deepPlan(t, c, n, shape)
				return testing.AllocsPerRun(1, func() {
					if _, err := plan.Build(context.Background(), pb, c, plan.Options{}); err != nil {
						t.Fatal(err)
					}
				})
			}
			const n = 1000
			a, b := build(n), build(2*n)
			t.Logf("%d: %.0f allocations, %d: %.0f (x%.2f)", n, a, 2*n, b, b/a)
			if b > 2.6*a {
				t.Errorf("planning allocates %.0f at %d and %.0f at %d: x%.2f for twice the size, want about 2", a, n, b, 2*n, b/a)
			}
		})
	}
}
