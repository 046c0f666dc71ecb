package plan_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// TestRollupMatchesExpansion is the roll-up's model test: on random tables
// (NULL keys, NULL values, few distinct keys so groups merge, and an empty
// one) every grouping-set query returns, rolled up from the finest set
// (rollup.go), the rows the expansion returns when every input row is
// aggregated once per set (Options.DisableRollup, the plan before the
// roll-up). A query whose measures all have partial states is planned
// rolled up (a Partial aggregation below a Final one); one with
// count(DISTINCT) keeps the expansion.
func TestRollupMatchesExpansion(t *testing.T) {
	queries := []struct {
		sql    string
		rolled bool
	}{
		{"SELECT a, b, GROUPING(a, b), count(*), count(c), sum(c), min(c), max(a), avg(c) FROM g GROUP BY ROLLUP (a, b)", true},
		{"SELECT a, b, GROUPING(b, a), count(*), sum(c), CAST(stddev(c) AS TEXT), CAST(var_pop(c) AS TEXT), max(b) FROM g GROUP BY CUBE (a, b)", true},
		{"SELECT a, b, count(*), sum(c) FROM g GROUP BY GROUPING SETS ((a), (b), (a, b), ())", true},
		{"SELECT a, b, GROUPING(a, b), count(*) FILTER (WHERE c > 2), sum(c) FILTER (WHERE b <> 1) FROM g GROUP BY a, ROLLUP (b)", true},
		{"SELECT b % 2, a, count(*), min(c) FROM g GROUP BY ROLLUP (b % 2, a) HAVING count(*) > 1", true},
		{"SELECT a, b, count(*), bool_or(c > 3) FROM g GROUP BY GROUPING SETS ((a, b), (a, b), (b))", true},
		{"SELECT a, count(DISTINCT b), sum(c) FROM g GROUP BY ROLLUP (a)", false},
	}
	rng := rand.New(rand.NewPCG(29, 8))
	for trial := range 12 {
		n := 0
		if trial > 0 {
			n = 1 + rng.IntN(60)
		}
		rows := make([][]any, n)
		for i := range rows {
			var a, b, c any
			if rng.IntN(6) > 0 {
				a = []string{"x", "y", "z"}[rng.IntN(3)]
			}
			if rng.IntN(6) > 0 {
				b = int64(rng.IntN(4))
			}
			if rng.IntN(5) > 0 {
				c = int64(rng.IntN(9) - 2)
			}
			rows[i] = []any{a, b, c}
		}
		for _, q := range queries {
			t.Run(fmt.Sprintf("trial%d/%s", trial, q.sql), func(t *testing.T) {
				mem := exectest.Mem(t)
				c := newCatalog(t, mem)
				c.add("g", []arrow.Field{
					{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true},
					{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
					{Name: "c", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
				}, rows)
				stmts, err := sql.Parse(q.sql, sqlCatalog{c})
				if err != nil {
					t.Fatal(err)
				}
				pb := stmts[0].(*sql.Query).Plan
				want, _, err := run(t, mem, c, pb, plan.Options{DisableRollup: true}, nil, 7)
				if err != nil {
					t.Fatal(err)
				}
				for _, threads := range []int{1, 2} {
					got, explain, err := run(t, mem, c, pb, plan.Options{Threads: threads}, nil, 7)
					if err != nil {
						t.Fatalf("%v\n%s", err, explain)
					}
					rolled := strings.Contains(explain, "mode=Partial") && strings.Contains(explain, "mode=Final")
					if rolled != q.rolled {
						t.Fatalf("rolled up %v, want %v:\n%s", rolled, q.rolled, explain)
					}
					equalRows(t, byText(got), byText(want))
				}
			})
		}
	}
}
