package plan_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan"
)

// TestIsthmusRestriction: Isthmus writes TPC-H Q2, Q17 and Q20's
// correlated scalar subqueries as subquery expressions; decorrelated
// (optimize.Decorrelate), each is an aggregate grouped by the
// correlation's keys, and its input is inner joined with the distinct
// keys the outer query's rows can have (optimize/restrict.go), as for
// the same queries in SQL: Q17 aggregates only the lineitems of the
// parts of Brand#23 in a MED BOX, not all of lineitem.
func TestIsthmusRestriction(t *testing.T) {
	for q, gby := range map[string]string{
		"q02": "HashAggregateExec: gby=[ps_partkey@0]",
		"q17": "HashAggregateExec: gby=[l_partkey@0]",
		"q20": "HashAggregateExec: gby=[l_partkey@0, l_suppkey@1]",
	} {
		t.Run(q, func(t *testing.T) {
			data, err := os.ReadFile("testdata/producers/isthmus/tpch/" + q + ".json")
			if err != nil {
				t.Fatal(err)
			}
			pb, err := plan.DecodePlan(data)
			if err != nil {
				t.Fatal(err)
			}
			n, err := plan.Build(context.Background(), pb, sf1{tpchCatalog(t, pb)}, plan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			e := exec.Explain(n, false)
			lines := strings.Split(e, "\n")
			for i, l := range lines {
				if strings.Contains(l, gby) {
					// The join's build side, under it, is a keys-only
					// aggregate (the distinct keys).
					if i+1 < len(lines) && strings.Contains(lines[i+1], "type=Inner on=") {
						for _, b := range lines[i+2:] {
							if strings.Contains(b, "aggr=[]") {
								return
							}
						}
					}
					t.Fatalf("the subquery's aggregate is not over an inner join with the distinct keys\n%s", e)
				}
			}
			t.Fatalf("no %q\n%s", gby, e)
		})
	}
}
