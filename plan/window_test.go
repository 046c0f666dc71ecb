package plan_test

import (
	"errors"
	"fmt"
	"math"
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

// TestWindowAggregatesFromProducer: a WindowRel from another producer
// with std_dev (distribution POPULATION), variance (no option: the
// sample), bit_or and string_agg, by name, plans each as its window
// function (before, every one was "unsupported: window function ...").
func TestWindowAggregatesFromProducer(t *testing.T) {
	fn := func(anchor int, out string, opts string, args ...int) string {
		as := make([]string, len(args))
		for i, a := range args {
			as[i] = `{"value": ` + fieldRef(a) + `}`
		}
		return fmt.Sprintf(`{"functionReference": %d, "outputType": %s, %s "arguments": [%s],
		  "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT", "boundsType": "BOUNDS_TYPE_ROWS",
		  "lowerBound": {"unbounded": {}}, "upperBound": {"unbounded": {}}}`, anchor, out, opts, strings.Join(as, ", "))
	}
	fp64 := `{"fp64": {"nullability": "NULLABILITY_NULLABLE"}}`
	window := `{"window": {"common": {"emit": {"outputMapping": [0, 5, 6, 7, 8]}}, "input": ` + ordersRead + `,
	  "windowFunctions": [` + fn(0, fp64, `"options": [{"name": "distribution", "preference": ["POPULATION"]}],`, 2) + `, ` +
		fn(1, fp64, "", 2) + `, ` + fn(2, `{"i64": {"nullability": "NULLABILITY_NULLABLE"}}`, "", 1) + `, ` +
		fn(3, `{"string": {"nullability": "NULLABILITY_NULLABLE"}}`, "", 4, 3) + `],
	  "partitionExpressions": [` + fieldRef(1) + `], "sorts": [{"expr": ` + fieldRef(0) + `, "direction": "SORT_DIRECTION_ASC_NULLS_LAST"}]}}`
	decl := func(anchor int, name string) string {
		return fmt.Sprintf(`{"extensionFunction": {"extensionUriReference": 4294967295, "functionAnchor": %d, "name": %q}}`, anchor, name)
	}
	js := `{"extensions": [` + decl(0, "std_dev") + `, ` + decl(1, "variance") + `, ` + decl(2, "bit_or") + `, ` + decl(3, "string_agg") + `],
	  "relations": [{"root": {"input": ` + window + `, "names": ["k", "sdp", "vs", "bo", "sa"]}}]}`
	mem := exectest.Mem(t)
	c := producerCatalog(t)
	c.mem = mem
	pb, err := plan.DecodePlan([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	rows, explain, err := run(t, mem, c, pb, plan.Options{}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"stddev_pop(o_totalprice@2)", "var_samp(o_totalprice@2)", "bit_or(o_custkey@1)", "string_agg(o_comment@4, o_orderstatus@3)"} {
		if !strings.Contains(explain, want) {
			t.Fatalf("no %s in\n%s", want, explain)
		}
	}
	// Customer 10: orders 1, 3, 7 (100.5, 75.25, 99), comments fast, slow
	// (after O), fast (after F).
	for _, r := range rows {
		if r[0] != int64(1) {
			continue
		}
		mean := (100.5 + 75.25 + 99) / 3
		ss := (100.5-mean)*(100.5-mean) + (75.25-mean)*(75.25-mean) + (99-mean)*(99-mean)
		if sdp := r[1].(float64); math.Abs(sdp-math.Sqrt(ss/3)) > 1e-12 {
			t.Fatalf("stddev_pop %v, want %v", sdp, math.Sqrt(ss/3))
		}
		if vs := r[2].(float64); math.Abs(vs-ss/2) > 1e-9 {
			t.Fatalf("var_samp %v, want %v", vs, ss/2)
		}
		if r[3] != int64(10) || r[4] != "fastOslowFfast" {
			t.Fatalf("bit_or, string_agg: %v %v", r[3], r[4])
		}
		return
	}
	t.Fatalf("no order 1 in %v", rows)
}
