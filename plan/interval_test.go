package plan_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
)

// Isthmus writes TPC-H Q1's date '1998-12-01' - interval '120' day as
// subtract:date_iday over a date and an interval_day<6> literal, which
// the planner refused ("unsupported expression: literal interval_day<6>
// (120 days, ...)"). A whole number of days is date arithmetic, in
// either operand order of add; seconds are refused by name.
func TestDateIntervalDay(t *testing.T) {
	mem := exectest.Mem(t)
	c := newCatalog(t, mem)
	read := `{"read": {"baseSchema": {"names": ["x"], "struct": {"types": [{"date": {"nullability": "NULLABILITY_NULLABLE"}}]}},
	  "virtualTable": {"expressions": [{"fields": [{"literal": {"date": 10561, "nullable": true}}]}, {"fields": [{"literal": {"null": {"date": {"nullability": "NULLABILITY_NULLABLE"}}}}]}]}}}`
	iv := func(days, secs string) string {
		return `{"literal": {"intervalDayToSecond": {"days": ` + days + `, "seconds": ` + secs + `, "precision": 6}}}`
	}
	x := `{"selection": {"directReference": {"structField": {"field": 0}}, "rootReference": {}}}`
	call := func(fn, a, b string) []byte {
		return []byte(`{
		  "extensionUris": [{"extensionUriAnchor": 1, "uri": "/functions_datetime.yaml"}],
		  "extensions": [{"extensionFunction": {"extensionUriReference": 1, "functionAnchor": 1, "name": "` + fn + `"}}],
		  "relations": [{"root": {"names": ["y"], "input": {"project": {"common": {"emit": {"outputMapping": [1]}}, "input": ` + read + `,
		    "expressions": [{"cast": {"type": {"string": {"nullability": "NULLABILITY_NULLABLE"}}, "input": {"scalarFunction": {"functionReference": 1,
		      "outputType": {"date": {"nullability": "NULLABILITY_NULLABLE"}},
		      "arguments": [{"value": ` + a + `}, {"value": ` + b + `}]}}}}]}}}}]}`)
	}
	for _, tc := range []struct {
		name string
		plan []byte
		want string
	}{
		{"date-minus-days", call("subtract:date_iday", x, iv("120", "0")), "1998-08-03"},
		{"date-plus-days", call("add:date_iday", x, iv("3", "0")), "1998-12-04"},
		{"days-plus-date", call("add:iday_date", iv("3", "0"), x), "1998-12-04"},
	} {
		pb, err := plan.DecodePlan(tc.plan)
		if err != nil {
			t.Fatal(err)
		}
		rows, _, err := run(t, mem, c, pb, plan.Options{}, nil, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		equalRows(t, rows, [][]any{{tc.want}, {nil}})
	}
	pb, err := plan.DecodePlan(call("subtract:date_iday", x, iv("1", "3600")))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, mem, c, pb, plan.Options{}, nil, 0); !errors.Is(err, plan.ErrUnsupported) || !strings.Contains(err.Error(), "interval_day literal with seconds") {
		t.Fatalf("seconds: got %v, want ErrUnsupported naming the literal", err)
	}
}
