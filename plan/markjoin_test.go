package plan_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
)

// A producer's JOIN_TYPE_LEFT_MARK join (Substrait's mark join: the left
// rows and a nullable boolean, TRUE if a right row makes the condition
// true, else NULL if one makes it NULL, else FALSE) runs as the hash
// mark join, its emit choosing the mark: x IN (S) over NULLs on both
// sides, then over a right side without its NULL. substrait-go cannot
// type the join type itself (plan/ingest/markjoin.go reads it as a
// marked LEFT join); a post-join filter on one is refused by name.
func TestProducerMarkJoin(t *testing.T) {
	mem := exectest.Mem(t)
	c := newCatalog(t, mem)
	k := []arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}
	c.add("l", k, [][]any{{int64(1), uint64(0), uint64(0)}, {int64(2), uint64(1), uint64(1)}, {nil, uint64(2), uint64(2)}})
	c.add("r", k, [][]any{{int64(1), uint64(0), uint64(0)}, {nil, uint64(1), uint64(1)}})
	c.add("r2", k, [][]any{{int64(1), uint64(0), uint64(0)}})
	read := func(name string) string {
		return `{"read": {"common": {"direct": {}}, "namedTable": {"names": ["` + name + `"]}, "baseSchema": {"names": ["k", "_rowid", "_rowaddr"],
		  "struct": {"nullability": "NULLABILITY_REQUIRED", "types": [{"i64": {"nullability": "NULLABILITY_NULLABLE"}},
		  {"i64": {"nullability": "NULLABILITY_REQUIRED"}}, {"i64": {"nullability": "NULLABILITY_REQUIRED"}}]}}}}`
	}
	markPlan := func(right, extra string) string {
		return `{"extensionUrns": [{"extensionUrnAnchor": 1, "urn": "extension:io.substrait:functions_comparison"}],
		  "extensions": [{"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 1, "name": "equal:any_any"}}],
		  "relations": [{"root": {"names": ["k", "m"], "input": {"join": {"common": {"emit": {"outputMapping": [0, 3]}},
		  "left": ` + read("l") + `, "right": ` + read(right) + `, "expression": {"scalarFunction": {"functionReference": 1, "outputType": ` + vBool + `,
		  "arguments": [{"value": ` + vRef("0") + `}, {"value": ` + vRef("3") + `}]}}, "type": "JOIN_TYPE_LEFT_MARK"` + extra + `}}}}]}`
	}
	for _, tc := range []struct {
		right string
		want  [][]any
	}{
		{"r", [][]any{{int64(1), true}, {int64(2), nil}, {nil, nil}}},
		{"r2", [][]any{{int64(1), true}, {int64(2), false}, {nil, nil}}},
	} {
		got, explain, err := run(t, mem, c, mustDecode(t, []byte(markPlan(tc.right, ""))), plan.Options{}, nil, 2)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.right, err, explain)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("%s: got %v, want %v\n%s", tc.right, got, tc.want, explain)
		}
		if !strings.Contains(explain, "HashJoinExec: type=Mark") {
			t.Fatalf("want the hash mark join:\n%s", explain)
		}
	}
	_, err := plan.Build(context.Background(), mustDecode(t, []byte(markPlan("r", `, "postJoinFilter": {"literal": {"boolean": false}}`))), c, plan.Options{})
	if !errors.Is(err, plan.ErrUnsupported) || !strings.Contains(err.Error(), "mark join's post-join filter") {
		t.Fatalf("post-join filter: %v", err)
	}
}
