package plan_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
)

// excludePlan is a WindowRel over orders, per customer by status, of
// count(o_orderkey) over the whole partition carrying each of prefs as
// the option stablerow.frame_exclude ("" for no option).
func excludePlan(prefs ...string) string {
	var fns, out, names []string
	for i, p := range prefs {
		opt := ""
		if p != "" {
			opt = fmt.Sprintf(`"options": [{"name": "stablerow.frame_exclude", "preference": [%q]}],`, p)
		}
		fns = append(fns, fmt.Sprintf(`{"functionReference": 0, "outputType": {"i64": {"nullability": "NULLABILITY_REQUIRED"}}, %s
		  "arguments": [{"value": %s}], "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT", "boundsType": "BOUNDS_TYPE_ROWS",
		  "lowerBound": {"unbounded": {}}, "upperBound": {"unbounded": {}}}`, opt, fieldRef(0)))
		out = append(out, fmt.Sprint(5+i))
		names = append(names, fmt.Sprintf("c%d", i))
	}
	window := `{"window": {"common": {"emit": {"outputMapping": [0, ` + strings.Join(out, ", ") + `]}}, "input": ` + ordersRead + `,
	  "windowFunctions": [` + strings.Join(fns, ", ") + `], "partitionExpressions": [` + fieldRef(1) + `],
	  "sorts": [{"expr": ` + fieldRef(3) + `, "direction": "SORT_DIRECTION_ASC_NULLS_LAST"}]}}`
	return `{"extensions": [{"extensionFunction": {"extensionUriReference": 4294967295, "functionAnchor": 0, "name": "count"}}],
	  "relations": [{"root": {"input": ` + window + `, "names": ["k", "` + strings.Join(names, `", "`) + `"]}}]}`
}

// TestWindowExcludeOption: a Substrait plan's window functions carrying
// stablerow.frame_exclude (Substrait has no EXCLUDE; docs/substrait.md)
// run with the exclusion: over a customer's orders, by status, count
// leaves out the current row (CURRENT_ROW), its peers with it (GROUP) or
// without it (TIES); NO_OTHERS and no option keep them. A preference that
// is none of these is ErrInvalidPlan.
func TestWindowExcludeOption(t *testing.T) {
	mem := exectest.Mem(t)
	c := producerCatalog(t)
	c.mem = mem
	prefs := []string{"CURRENT_ROW", "GROUP", "TIES", "NO_OTHERS", ""}
	pb, err := plan.DecodePlan([]byte(excludePlan(prefs...)))
	if err != nil {
		t.Fatal(err)
	}
	rows, explain, err := run(t, mem, c, pb, plan.Options{}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(explain, "EXCLUDE TIES") {
		t.Fatalf("no EXCLUDE TIES in\n%s", explain)
	}
	var want [][]any
	for _, o := range orders {
		var all, peers int64
		for _, p := range orders {
			if p.cust == o.cust {
				all++
				if p.status == o.status {
					peers++
				}
			}
		}
		want = append(want, []any{o.key, all - 1, all - peers, all - peers + 1, all, all})
	}
	sortAny(rows)
	sortAny(want)
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("rows %v\nwant %v\n%s", rows, want, explain)
	}

	pb, err = plan.DecodePlan([]byte(excludePlan("SOME")))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err = run(t, mem, c, pb, plan.Options{}, nil, 2); !errors.Is(err, plan.ErrInvalidPlan) || !strings.Contains(err.Error(), "stablerow.frame_exclude") {
		t.Fatalf("preference SOME: %v, want ErrInvalidPlan naming the option", err)
	}
}
