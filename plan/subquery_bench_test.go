package plan_test

import (
	"context"
	"testing"

	"github.com/stablerow/stablerow/plan"
)

// BenchmarkBuildSubquery measures planning a correlated scalar subquery
// (TPC-H Q17's shape: validate, optimize.Decorrelate into a grouped LEFT
// join, validate again, substrait-go, planner), beside a plan of similar
// size without subqueries (a join), for decorrelation's cost.
func BenchmarkBuildSubquery(b *testing.B) {
	fixtures := producerFixtures(b)
	for _, name := range []string{"isthmus/subquery_scalar_correlated", "isthmus/subquery_exists", "isthmus/join"} {
		b.Run(name, func(b *testing.B) {
			c := producerCatalog(b)
			c.noData = true // planned, never run
			pb := mustDecode(b, fixtures[name])
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := plan.Build(ctx, pb, c, plan.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
