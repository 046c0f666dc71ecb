package plan_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// keyedCatalog serves testCatalog's tables as providers that say which
// columns a unique index covers (plan.UniqueKeyer), as the engine's do.
type keyedCatalog struct{ c *testCatalog }

type keyedTable struct{ *testTable }

func (k keyedTable) HasUniqueIndex(col int) bool { return k.unique[col] }

func (k keyedCatalog) Table(name string) (plan.TableProvider, error) {
	t, ok := k.c.tables[name]
	if !ok {
		return nil, fmt.Errorf("%q: %w", name, errNoTable)
	}
	return keyedTable{t}, nil
}

// TestJoinChainPlanningPolynomial: planning a chain join of 2n tables
// costs a polynomial factor more than n tables, not 2^n (issue 28's join
// enumeration: each join compiled its left input once for a take attempt
// and again for the hash join, so EXPLAIN of a 25-table chain ran for
// minutes). Allocations count the work without timing it: n = 8 and 16
// would differ by 256x when exponential; the greedy order is about
// cubic, 8x.
func TestJoinChainPlanningPolynomial(t *testing.T) {
	mem := exectest.Mem(t)
	c := newCatalog(t, mem)
	c.noData = true
	for i := range 16 {
		c.add(fmt.Sprintf("j%d", i), []arrow.Field{
			{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	}
	chain := func(n int) string {
		var from, where []string
		for i := range n {
			from = append(from, fmt.Sprintf("j%d", i))
			if i > 0 {
				where = append(where, fmt.Sprintf("j%d.b = j%d.a", i-1, i))
			}
		}
		return "SELECT count(*) FROM " + strings.Join(from, ", ") + " WHERE " + strings.Join(where, " AND ")
	}
	build := func(n int) float64 {
		stmts, err := sql.Parse(chain(n), sqlCatalog{c})
		if err != nil {
			t.Fatal(err)
		}
		pb := stmts[0].(*sql.Query).Plan
		return testing.AllocsPerRun(1, func() {
			if _, err := plan.Build(context.Background(), pb, keyedCatalog{c}, plan.Options{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	a, b := build(8), build(16)
	t.Logf("8 tables: %.0f allocations, 16: %.0f (x%.1f)", a, b, b/a)
	if b > 20*a {
		t.Errorf("planning a 16-table chain allocates x%.1f of an 8-table one: exponential", b/a)
	}
}

// joinQuery is a count(*) over n tables j0..j(n-1) joined as a chain
// (j(i-1).b = ji.a), a star (j0.a = ji.a) or a clique (every pair,
// ji.a = jk.b for i < k).
func joinQuery(shape string, n int) string {
	var from, where []string
	for i := range n {
		from = append(from, fmt.Sprintf("j%d", i))
		switch {
		case shape == "chain" && i > 0:
			where = append(where, fmt.Sprintf("j%d.b = j%d.a", i-1, i))
		case shape == "star" && i > 0:
			where = append(where, fmt.Sprintf("j0.a = j%d.a", i))
		case shape == "clique":
			for k := i + 1; k < n; k++ {
				where = append(where, fmt.Sprintf("j%d.a = j%d.b", i, k))
			}
		}
	}
	return "SELECT count(*) FROM " + strings.Join(from, ", ") + " WHERE " + strings.Join(where, " AND ")
}

// BenchmarkJoinPlanning: SQL to a physical plan for chain, star and
// clique joins of 5 to 100 tables (issue 28's planning-time table;
// BENCHMARKS.md). The tables are empty: the estimates are the planner's
// defaults, and nothing runs.
func BenchmarkJoinPlanning(b *testing.B) {
	mem := exectest.Mem(b)
	c := newCatalog(b, mem)
	c.noData = true
	for i := range 100 {
		c.add(fmt.Sprintf("j%d", i), []arrow.Field{
			{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	}
	for _, shape := range []string{"chain", "star", "clique"} {
		for _, n := range []int{5, 10, 25, 100} {
			q := joinQuery(shape, n)
			b.Run(fmt.Sprintf("%s/%d", shape, n), func(b *testing.B) {
				for b.Loop() {
					stmts, err := sql.Parse(q, sqlCatalog{c})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := plan.Build(context.Background(), stmts[0].(*sql.Query).Plan, keyedCatalog{c}, plan.Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
