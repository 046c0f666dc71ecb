package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// TestSharedSubplans: a relation repeated in a plan runs as one shared
// subplan, from SQL and from the same plan as an outside producer's
// binary Substrait (no CTE survives in Substrait: the repeat is found by
// its bytes), serial and on 4 partitions, with the answer of the plan
// compiled at each occurrence (Options.DisableSharing). Mutation caught:
// compiling the shared relation for its first occurrence's columns, not
// the union of all occurrences' (q2's readers need different columns: the
// others are then compiled on their own, and nothing reads the shared run
// twice); a consumer that drops rows (the answers differ).
func TestSharedSubplans(t *testing.T) {
	queries := []string{
		// Q15's shape: a grouped CTE read by a join and a scalar subquery.
		`WITH r AS (SELECT o_custkey AS ck, sum(o_totalprice) AS total FROM orders GROUP BY o_custkey)
		 SELECT c_name, total FROM customer, r WHERE c_custkey = ck AND total = (SELECT max(total) FROM r)`,
		// Q11's shape: the HAVING threshold repeats the FROM and WHERE;
		// the occurrences need different columns (o_orderkey only outside).
		`SELECT o_orderkey, sum(o_totalprice) FROM orders, customer WHERE o_custkey = c_custkey AND c_nationkey = 1
		 GROUP BY o_orderkey HAVING sum(o_totalprice) > (SELECT avg(o_totalprice) FROM orders, customer WHERE o_custkey = c_custkey AND c_nationkey = 1)`,
		// Three readers, one of them under UNION ALL.
		`WITH r AS (SELECT o_custkey AS ck, count(*) AS n FROM orders GROUP BY o_custkey)
		 SELECT a.ck, b.n FROM r AS a JOIN r AS b ON a.ck = b.ck UNION ALL SELECT ck, n FROM r`,
	}
	for qi, q := range queries {
		for _, threads := range []int{1, 4} {
			t.Run(fmt.Sprintf("q%d/threads=%d", qi, threads), func(t *testing.T) {
				mem := exectest.Mem(t)
				c := producerCatalog(t)
				c.mem = mem
				stmts, err := sql.Parse(q, sqlCatalog{c})
				if err != nil {
					t.Fatal(err)
				}
				p := stmts[0].(*sql.Query).Plan
				bin, err := proto.Marshal(p)
				if err != nil {
					t.Fatal(err)
				}
				var outside substraitpb.Plan
				if err := proto.Unmarshal(bin, &outside); err != nil {
					t.Fatal(err)
				}
				want, explain, err := run(t, mem, c, p, plan.Options{Threads: threads, DisableSharing: true}, nil, 3)
				if err != nil || strings.Contains(explain, "SharedExec") {
					t.Fatalf("unshared: %v\n%s", err, explain)
				}
				for _, pl := range []*substraitpb.Plan{p, &outside} {
					got, explain, err := run(t, mem, c, pl, plan.Options{Threads: threads}, nil, 3)
					if err != nil {
						t.Fatalf("%v\n%s", err, explain)
					}
					if !strings.Contains(explain, "SharedExec: id=1 consumers=") || strings.Count(explain, "SharedExec: id=1 (reads") < 1 {
						t.Fatalf("not shared:\n%s", explain)
					}
					sortAny(got)
					sortAny(want)
					if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("shared rows %v, unshared %v\n%s", got, want, explain)
					}
				}
			})
		}
	}
}
