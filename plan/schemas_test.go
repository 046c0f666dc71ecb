package plan_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
)

// DataFusion's read names its columns without their types; Build takes
// them from the catalog's table, by name (in any order, with the case
// folding the scan uses), and runs the plan. A name the table lacks is an
// invalid plan naming it.
func TestReadNamesWithoutTypes(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	read := func(names string) []byte {
		return []byte(`{"relations": [{"root": {"names": [` + names + `], "input": {"read": {
		  "baseSchema": {"names": [` + names + `]}, "namedTable": {"names": ["t"]}}}}}]}`)
	}
	pb, err := plan.DecodePlan(read(`"score", "ID"`))
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := run(t, mem, c, pb, plan.Options{}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(tRows) {
		t.Fatalf("%d rows, want %d", len(rows), len(tRows))
	}
	for i, r := range rows {
		if want := []any{tRows[i][2], tRows[i][0]}; !equalAny(r, want) {
			t.Fatalf("row %d: %v, want %v", i, r, want)
		}
	}
	if pb, err = plan.DecodePlan(read(`"id", "nope"`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, mem, c, pb, plan.Options{}, nil, 0); !errors.Is(err, plan.ErrInvalidPlan) || !strings.Contains(err.Error(), `has no column "nope"`) {
		t.Fatalf("unknown column: got %v", err)
	}
}

func equalAny(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
