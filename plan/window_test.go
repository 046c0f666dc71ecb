package plan_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
)

// windowPlan is a plan over the producer fixtures' orders table whose
// root's input is rel (a JSON relation over ordersRead) and whose output
// is names.
func windowPlan(rel string, names ...string) string {
	return `{"extensions": [{"extensionFunction": {"extensionUriReference": 4294967295, "functionAnchor": 0, "name": "row_number"}},
	  {"extensionFunction": {"extensionUriReference": 4294967295, "functionAnchor": 1, "name": "rank"}}],
	  "relations": [{"root": {"input": ` + rel + `, "names": ["` + strings.Join(names, `", "`) + `"]}}]}`
}

const ordersRead = `{"read": {"baseSchema": {"names": ["o_orderkey", "o_custkey", "o_totalprice", "o_orderstatus", "o_comment"],
  "struct": {"types": [{"i64": {"nullability": "NULLABILITY_NULLABLE"}}, {"i64": {"nullability": "NULLABILITY_NULLABLE"}},
  {"fp64": {"nullability": "NULLABILITY_NULLABLE"}}, {"string": {"nullability": "NULLABILITY_NULLABLE"}},
  {"string": {"nullability": "NULLABILITY_NULLABLE"}}], "nullability": "NULLABILITY_REQUIRED"}}, "namedTable": {"names": ["orders"]}}}`

func fieldRef(i int) string {
	return fmt.Sprintf(`{"selection": {"directReference": {"structField": {"field": %d}}, "rootReference": {}}}`, i)
}

// TestConsistentPartitionWindowRel: a WindowRel (row_number and rank per
// customer by order key; rank by status DESC, a second ordering) is
// planned as the window functions of a projection, one sort per ordering.
func TestConsistentPartitionWindowRel(t *testing.T) {
	fn := func(anchor int) string {
		return fmt.Sprintf(`{"functionReference": %d, "outputType": {"i64": {"nullability": "NULLABILITY_REQUIRED"}},
		  "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT", "boundsType": "BOUNDS_TYPE_ROWS",
		  "lowerBound": {"unbounded": {}}, "upperBound": {"currentRow": {}}}`, anchor)
	}
	window := `{"window": {"common": {"emit": {"outputMapping": [0, 1, 5, 6]}}, "input": ` + ordersRead + `,
	  "windowFunctions": [` + fn(0) + `, ` + fn(1) + `], "partitionExpressions": [` + fieldRef(1) + `],
	  "sorts": [{"expr": ` + fieldRef(0) + `, "direction": "SORT_DIRECTION_ASC_NULLS_LAST"}]}}`
	mem := exectest.Mem(t)
	c := producerCatalog(t)
	c.mem = mem
	pb, err := plan.DecodePlan([]byte(windowPlan(window, "k", "c", "rn", "rk")))
	if err != nil {
		t.Fatal(err)
	}
	before := fmt.Sprint(pb)
	rows, explain, err := run(t, mem, c, pb, plan.Options{}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(pb) != before {
		t.Fatal("Build changed the caller's plan")
	}
	n := map[int64]int64{}
	var want [][]any
	for _, o := range orders {
		n[o.cust]++
		want = append(want, []any{o.key, o.cust, n[o.cust], n[o.cust]})
	}
	sortAny(rows)
	sortAny(want)
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("rows %v\nwant %v\n%s", rows, want, explain)
	}
	if strings.Count(explain, "WindowExec") != 1 || strings.Count(explain, "SortExec") != 1 ||
		!strings.Contains(explain, "WindowExec: partition=[o_custkey@1], order=[o_orderkey ASC], exprs=[row_number() as expr0, rank() as expr1]") {
		t.Fatalf("want one WindowExec over one sort:\n%s", explain)
	}
}

// TestWindowFunctionOutsideProjection: a window function in a filter's
// condition is refused by name (typed), not planned or panicking.
func TestWindowFunctionOutsideProjection(t *testing.T) {
	cond := `{"windowFunction": {"functionReference": 0, "outputType": {"i64": {"nullability": "NULLABILITY_REQUIRED"}},
	  "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT"}}`
	mem := exectest.Mem(t)
	c := producerCatalog(t)
	c.mem = mem
	pb, err := plan.DecodePlan([]byte(windowPlan(`{"filter": {"input": `+ordersRead+`, "condition": `+cond+`}}`, "a", "b", "c", "d", "e")))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, mem, c, pb, plan.Options{}, nil, 2)
	if !errors.Is(err, plan.ErrUnsupported) || !strings.Contains(err.Error(), "WindowFunction") {
		t.Fatalf("error %v, want ErrUnsupported naming WindowFunction", err)
	}
}
