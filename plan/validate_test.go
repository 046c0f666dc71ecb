package plan_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"google.golang.org/protobuf/proto"
)

// JSON pieces of hand-written plans over the standard table t.
const (
	vRead = `{"read": {"common": {"direct": {}}, "namedTable": {"names": ["t"]}, "baseSchema": {
	  "names": ["id", "name", "score", "_rowid", "_rowaddr"],
	  "struct": {"nullability": "NULLABILITY_REQUIRED", "types": [
	    {"i64": {"nullability": "NULLABILITY_NULLABLE"}}, {"string": {"nullability": "NULLABILITY_NULLABLE"}},
	    {"fp64": {"nullability": "NULLABILITY_NULLABLE"}}, {"i64": {"nullability": "NULLABILITY_REQUIRED"}},
	    {"i64": {"nullability": "NULLABILITY_REQUIRED"}}]}}}}`
	vExt = `"extensionUrns": [{"extensionUrnAnchor": 1, "urn": "extension:io.substrait:functions_comparison"}],
	  "extensions": [{"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 1, "name": "gt:any_any"}}]`
	vBool = `{"bool": {"nullability": "NULLABILITY_NULLABLE"}}`
)

// vRef is a root field reference to field i.
func vRef(i string) string {
	return `{"selection": {"directReference": {"structField": {"field": ` + i + `}}, "rootReference": {}}}`
}

// vGt is gt(field a, i64 literal) calling anchor 1.
func vGt(a, lit string) string {
	return `{"scalarFunction": {"functionReference": 1, "outputType": ` + vBool + `, "arguments": [{"value": ` + vRef(a) + `}, {"value": {"literal": {"i64": "` + lit + `"}}}]}}`
}

// vPlan is SELECT name FROM t WHERE id > 11 as root(project(filter(read))),
// with the pieces replaceable.
func vPlan(read, cond, emit string) string {
	return `{` + vExt + `, "relations": [{"root": {"names": ["name"], "input": {"project": {
	  "common": {"emit": {"outputMapping": [` + emit + `]}},
	  "input": {"filter": {"input": ` + read + `, "condition": ` + cond + `}},
	  "expressions": [` + vRef("1") + `]}}}}]}`
}

// TestValidateRefuses: each malformed plan is refused before substrait-go
// reads it, with a typed error naming the relation by its path in the
// plan. Before validate, each one panicked inside substrait-go (the
// recovered panic matched errkind.Internal) or was refused without a
// path.
func TestValidateRefuses(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	cases := []struct {
		name, plan string
		kind       error
		want       string
	}{
		{"filter-field-out-of-range", vPlan(vRead, vGt("7", "11"), "5"), plan.ErrInvalidPlan,
			"root.input.project.input.filter: condition.arguments[0]: field 7 out of range (input has 5 columns)"},
		{"project-field-out-of-range", strings.Replace(vPlan(vRead, vGt("0", "11"), "5"), `"expressions": [`+vRef("1"), `"expressions": [`+vRef("5"), 1), plan.ErrInvalidPlan,
			"root.input.project: expressions[0]: field 5 out of range (input has 5 columns)"},
		{"emit-out-of-range", vPlan(vRead, vGt("0", "11"), "6"), plan.ErrInvalidPlan,
			"root.input.project: emit output_mapping[0] = 6 out of range (the relation has 6 columns)"},
		{"undeclared-function", strings.Replace(vPlan(vRead, vGt("0", "11"), "5"), `"functionReference": 1`, `"functionReference": 9`, 1), plan.ErrInvalidPlan,
			"root.input.project.input.filter: condition: function anchor 9 is not declared"},
		// A call without its output_type is typed from its declared
		// signature (ingest's outputtype.go); one whose signature is not
		// known here is refused.
		{"no-output-type", strings.Replace(strings.Replace(vPlan(vRead, vGt("0", "11"), "5"), `"outputType": `+vBool+`,`, ``, 1), `"gt:any_any"`, `"frobnicate:any_any"`, 1), plan.ErrInvalidPlan,
			`root.input.project.input.filter: condition: function "frobnicate:any_any" without an output_type`},
		{"literal-without-value", vPlan(vRead, strings.Replace(vGt("0", "11"), `{"i64": "11"}`, `{"nullable": true}`, 1), "5"), plan.ErrInvalidPlan,
			"condition.arguments[1]: literal without a value"},
		{"mask-out-of-range", vPlan(strings.Replace(vRead, `"namedTable"`, `"projection": {"select": {"structItems": [{"field": 8}]}}, "namedTable"`, 1), vGt("0", "11"), "5"), plan.ErrInvalidPlan,
			"root.input.project.input.filter.input.read: projection field 8 out of range (base_schema has 5 columns)"},
		{"mask-narrows-width", vPlan(strings.Replace(vRead, `"namedTable"`, `"projection": {"select": {"structItems": [{"field": 0}, {"field": 1}]}}, "namedTable"`, 1), vGt("3", "11"), "2"), plan.ErrInvalidPlan,
			"root.input.project.input.filter: condition.arguments[0]: field 3 out of range (input has 2 columns)"},
		{"nested-reference", vPlan(vRead, strings.Replace(vGt("0", "11"), `"structField": {"field": 0}`, `"structField": {"field": 0, "child": {"structField": {"field": 2}}}`, 1), "5"), plan.ErrUnsupported,
			"nested field reference at root.input.project.input.filter: condition.arguments[0]"},
		{"outer-reference", vPlan(vRead, strings.Replace(vGt("0", "11"), `"rootReference": {}`, `"outerReference": {"stepsOut": 1}`, 1), "5"), plan.ErrInvalidPlan,
			"outer field reference outside a subquery"},
		{"scalar-subquery-width", vPlan(vRead, `{"subquery": {"scalar": {"input": `+vRead+`}}}`, "5"), plan.ErrInvalidPlan,
			"root.input.project.input.filter: condition.subquery: scalar subquery returns 5 columns, want 1"},
		{"subquery-field-out-of-range", vPlan(vRead, `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": {"filter": {"input": `+vRead+`, "condition": `+vGt("9", "1")+`}}}}}`, "5"), plan.ErrInvalidPlan,
			"root.input.project.input.filter: condition.subquery.set_predicate.tuples.filter: condition.arguments[0]: field 9 out of range (input has 5 columns)"},
		{"outer-reference-out-of-range", vPlan(vRead, `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": {"filter": {"input": `+vRead+`, "condition": `+
			strings.Replace(vGt("7", "1"), `"rootReference": {}`, `"outerReference": {"stepsOut": 1}`, 1)+`}}}}}`, "5"), plan.ErrInvalidPlan,
			"outer field 7 out of range (the query 1 level(s) out has 5 columns)"},
		{"outer-reference-too-far", vPlan(vRead, `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": {"filter": {"input": `+vRead+`, "condition": `+
			strings.Replace(vGt("0", "1"), `"rootReference": {}`, `"outerReference": {"stepsOut": 2}`, 1)+`}}}}}`, "5"), plan.ErrInvalidPlan,
			"outer field reference steps_out 2 (the expression is 1 subquery levels deep)"},
		{"in-predicate-width", vPlan(vRead, `{"subquery": {"inPredicate": {"needles": [`+vRef("0")+`], "haystack": `+vRead+`}}}`, "5"), plan.ErrInvalidPlan,
			"IN predicate has 1 needles and a haystack of 5 columns"},
		{"expand-relation", strings.Replace(vPlan(vRead, vGt("0", "11"), "5"), `"input": `+vRead, `"input": {"expand": {"input": `+vRead+`}}`, 1), plan.ErrUnsupported,
			"unsupported relation: ExpandRel at root.input.project.input.filter.input"},
		{"join-out-of-range", `{` + vExt + `, "relations": [{"root": {"names": ["a"], "input": {"project": {"common": {"emit": {"outputMapping": [10]}},
		  "input": {"join": {"type": "JOIN_TYPE_INNER", "left": ` + vRead + `, "right": ` + vRead + `, "expression": ` + vGt("10", "1") + `}},
		  "expressions": [` + vRef("0") + `]}}}}]}`, plan.ErrInvalidPlan,
			"root.input.project.input.join: expression.arguments[0]: field 10 out of range (input has 10 columns)"},
		{"semi-join-narrows", `{` + vExt + `, "relations": [{"root": {"names": ["a"], "input": {"project": {"common": {"emit": {"outputMapping": [6]}},
		  "input": {"join": {"type": "JOIN_TYPE_LEFT_SEMI", "left": ` + vRead + `, "right": ` + vRead + `, "expression": ` + vGt("9", "1") + `}},
		  "expressions": [` + vRef("6") + `]}}}}]}`, plan.ErrInvalidPlan,
			"root.input.project: expressions[0]: field 6 out of range (input has 5 columns)"},
		{"grouping-reference-out-of-range", `{` + vExt + `, "relations": [{"root": {"names": ["a"], "input": {"aggregate": {"input": ` + vRead + `,
		  "groupingExpressions": [` + vRef("1") + `], "groupings": [{"expressionReferences": [1]}]}}}}]}`, plan.ErrInvalidPlan,
			"root.input.aggregate: groupings[0].expression_references[0] = 1 out of range (1 grouping expressions)"},
		{"sort-without-direction", `{"relations": [{"root": {"names": ["id", "name", "score", "_rowid", "_rowaddr"], "input": {"sort": {"input": ` + vRead + `,
		  "sorts": [{"expr": ` + vRef("0") + `}]}}}}]}`, plan.ErrInvalidPlan,
			"root.input.sort: sorts[0]: sort field without a direction"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pb, err := plan.DecodePlan([]byte(tc.plan))
			if err != nil {
				t.Fatal(err)
			}
			_, err = plan.Build(context.Background(), pb, c, plan.Options{})
			if !errors.Is(err, tc.kind) || errors.Is(err, errkind.Internal) {
				t.Fatalf("error %v, want %v and not internal", err, tc.kind)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q lacks %q", err, tc.want)
			}
		})
	}
}

// TestNormalizeRuns: valid plans substrait-go would refuse or panic on
// run and return the rows SQL semantics give (computed here from tRows):
// a SortRel and a JoinRel without a RelCommon (the spec makes it
// optional; substrait-go dereferenced it), a count-only and an
// offset-only fetch (substrait-go: "missing required Offset field"), and
// a call passing its operands in the deprecated `args`. The caller's plan
// is left as it was.
func TestNormalizeRuns(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	sortByID := func(in string) string {
		return `{"sort": {"input": ` + in + `, "sorts": [{"expr": ` + vRef("0") + `, "direction": "SORT_DIRECTION_DESC_NULLS_LAST"}]}}`
	}
	project := func(in string) string {
		return `{"project": {"common": {"emit": {"outputMapping": [5]}}, "input": ` + in + `, "expressions": [` + vRef("0") + `]}}`
	}
	root := func(in string) string {
		return `{` + vExt + `, "relations": [{"root": {"names": ["id"], "input": ` + in + `}}]}`
	}
	// ids of tRows, descending, NULL last.
	desc := [][]any{{int64(16)}, {int64(15)}, {int64(14)}, {int64(12)}, {int64(11)}, {int64(10)}, {nil}}
	cases := []struct {
		name, plan string
		want       [][]any
	}{
		{"sort-without-common", root(project(sortByID(vRead))), desc},
		{"fetch-count-only", root(`{"fetch": {"input": ` + project(sortByID(vRead)) + `, "count": "3"}}`), desc[:3]},
		{"fetch-offset-only", root(`{"fetch": {"input": ` + project(sortByID(vRead)) + `, "offset": "5"}}`), desc[5:]},
		{"fetch-count-expr", root(`{"fetch": {"input": ` + project(sortByID(vRead)) + `, "offsetExpr": {"literal": {"i64": "1"}}, "countExpr": {"literal": {"i32": 2}}}}`), desc[1:3]},
		{"deprecated-args", root(project(`{"filter": {"input": ` + vRead + `, "condition": {"scalarFunction": {"functionReference": 1, "outputType": ` + vBool +
			`, "args": [` + vRef("0") + `, {"literal": {"i64": "13"}}]}}}}`)), [][]any{{int64(14)}, {int64(15)}, {int64(16)}}},
		{"join-without-common", root(`{"project": {"common": {"emit": {"outputMapping": [10]}}, "input": {"join": {"type": "JOIN_TYPE_INNER", "left": ` + vRead + `, "right": ` + vRead +
			`, "expression": {"scalarFunction": {"functionReference": 2, "outputType": ` + vBool + `, "arguments": [{"value": ` + vRef("0") + `}, {"value": ` + vRef("5") + `}]}}}}, "expressions": [` + vRef("0") + `]}}`),
			[][]any{{int64(10)}, {int64(11)}, {int64(12)}, {int64(14)}, {int64(15)}, {int64(16)}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			js := strings.Replace(tc.plan, `"name": "gt:any_any"}}]`, `"name": "gt:any_any"}}, {"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 2, "name": "equal:any_any"}}]`, 1)
			pb, err := plan.DecodePlan([]byte(js))
			if err != nil {
				t.Fatal(err)
			}
			orig := proto.Clone(pb)
			rows, _, err := run(t, mem, c, pb, plan.Options{}, nil, 4)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(tc.name, "join") {
				sortRows(rows)
			}
			equalRows(t, rows, tc.want)
			if !proto.Equal(orig, pb) {
				t.Fatal("Build modified the caller's plan")
			}
		})
	}
}

// sortRows orders single-int64-column rows ascending, NULL last.
func sortRows(rows [][]any) {
	less := func(a, b any) bool {
		if a == nil {
			return false
		}
		if b == nil {
			return true
		}
		return a.(int64) < b.(int64)
	}
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && less(rows[j][0], rows[j-1][0]); j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
}
