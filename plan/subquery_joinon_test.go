package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
)

// TestOuterReferenceInJoinExpression feeds Substrait plans whose scalar
// subquery holds a join whose expression reads the outer row (an
// outer_reference inside the JoinRel's expression), for FULL, RIGHT and
// LEFT joins: the dependent join the optimizer unnests (a RIGHT or FULL
// join takes the domain into both sides: decorrelate_fulljoin.go). The
// rows are PostgreSQL 15's for the same data (table pt, tRows' user
// columns) and
//
//	SELECT o.id, (SELECT count(<c>) FROM pt a <type> JOIN pt b
//	              ON a.id = b.id + 1 AND <x>.score <op> o.score) FROM pt o
//
// A RIGHT or FULL join here was refused ("outer reference inside a
// JOIN_TYPE_OUTER join").
func TestOuterReferenceInJoinExpression(t *testing.T) {
	ext := `"extensions": [{"extensionFunction": {"functionAnchor": 1, "name": "and"}},
	  {"extensionFunction": {"functionAnchor": 2, "name": "equal"}}, {"extensionFunction": {"functionAnchor": 3, "name": "add"}},
	  {"extensionFunction": {"functionAnchor": 5, "name": "lt"}},
	  {"extensionFunction": {"functionAnchor": 6, "name": "gt"}}, {"extensionFunction": {"functionAnchor": 7, "name": "count"}}]`
	i64 := `{"i64": {"nullability": "NULLABILITY_NULLABLE"}}`
	call := func(f int, typ string, args ...string) string {
		vs := make([]string, len(args))
		for i, a := range args {
			vs[i] = `{"value": ` + a + `}`
		}
		return fmt.Sprintf(`{"scalarFunction": {"functionReference": %d, "outputType": %s, "arguments": [%s]}}`, f, typ, strings.Join(vs, ", "))
	}
	outer := func(i string) string {
		return strings.Replace(vRef(i), `"rootReference": {}`, `"outerReference": {"stepsOut": 1}`, 1)
	}
	// a.id = b.id + 1 AND <score field> <op> o.score (a: fields 0-4, b: 5-9)
	on := func(op int, score string) string {
		return call(1, vBool, call(2, vBool, vRef("0"), call(3, i64, vRef("5"), `{"literal": {"i64": "1"}}`)),
			call(op, vBool, vRef(score), outer("2")))
	}
	for _, tc := range []struct {
		name, joinType, on, count string
		want                      []int64 // per o.id 10, 11, 12, 14, 15, 16, NULL
	}{
		// count(*) ... FULL JOIN ... AND b.score > o.score
		{"full", "JOIN_TYPE_OUTER", on(6, "7"), "", []int64{13, 14, 14, 12, 14, 12, 14}},
		// count(a.id) ... RIGHT JOIN ... AND a.score < o.score
		{"right", "JOIN_TYPE_RIGHT", on(5, "2"), `"arguments": [{"value": ` + vRef("0") + `}], `, []int64{1, 0, 2, 0, 1, 0, 3}},
		// count(b.id) ... LEFT JOIN ... AND b.score > o.score
		{"left", "JOIN_TYPE_LEFT", on(6, "7"), `"arguments": [{"value": ` + vRef("5") + `}], `, []int64{1, 0, 0, 2, 0, 2, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			join := `{"join": {"common": {"direct": {}}, "left": ` + vRead + `, "right": ` + vRead + `, "type": "` + tc.joinType + `", "expression": ` + tc.on + `}}`
			count := `{"subquery": {"scalar": {"input": {"aggregate": {"common": {"direct": {}}, "input": ` + join + `,
			  "groupings": [], "measures": [{"measure": {"functionReference": 7, ` + tc.count + `"outputType": {"i64": {"nullability": "NULLABILITY_REQUIRED"}}}}]}}}}}`
			js := `{` + ext + `, "relations": [{"root": {"names": ["id", "n"],
			  "input": {"project": {"common": {"emit": {"outputMapping": [0, 5]}}, "input": ` + vRead + `, "expressions": [` + count + `]}}}}]}`
			var want [][]any
			for i, id := range []any{int64(10), int64(11), int64(12), int64(14), int64(15), int64(16), nil} {
				want = append(want, []any{id, tc.want[i]})
			}
			sortAny(want)
			for _, threads := range []int{1, 2, 4} {
				mem := exectest.Mem(t)
				got, explain, err := run(t, mem, stdCatalog(t, mem), mustDecode(t, []byte(js)), plan.Options{Threads: threads}, nil, 2)
				if err != nil {
					t.Fatalf("threads %d: %v\n%s", threads, err, explain)
				}
				sortAny(got)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("threads %d: rows %v, want %v\n%s", threads, got, want, explain)
				}
			}
		})
	}
}
