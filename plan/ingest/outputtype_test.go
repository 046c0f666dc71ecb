package ingest

import (
	"errors"
	"strings"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// outputTypePlan is a plan over t(k i64, d decimal(15,2), s string),
// declaring the functions DataFusion's older plans call through its
// u32::MAX anchor (no extension declared), with rel as the root's input
// and names its names.
func outputTypePlan(t *testing.T, names, rel string) *substraitpb.Plan {
	t.Helper()
	p, err := DecodePlan([]byte(`{"extensions": [
	  {"extensionFunction": {"extensionUriReference": 4294967295, "functionAnchor": 1, "name": "gt"}},
	  {"extensionFunction": {"extensionUriReference": 4294967295, "functionAnchor": 2, "name": "sum"}},
	  {"extensionFunction": {"extensionUriReference": 4294967295, "functionAnchor": 3, "name": "avg"}},
	  {"extensionFunction": {"extensionUriReference": 4294967295, "functionAnchor": 4, "name": "add"}},
	  {"extensionFunction": {"extensionUriReference": 4294967295, "functionAnchor": 5, "name": "frobnicate"}}],
	  "relations": [{"root": {"names": [` + names + `], "input": ` + rel + `}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const outputTypeRead = `{"read": {"namedTable": {"names": ["t"]}, "baseSchema": {"names": ["k", "d", "s"], "struct": {"types": [
  {"i64": {"nullability": "NULLABILITY_REQUIRED"}},
  {"decimal": {"precision": 15, "scale": 2, "nullability": "NULLABILITY_NULLABLE"}},
  {"string": {"nullability": "NULLABILITY_NULLABLE"}}]}}}}`

func col(i int) string {
	return `{"value": {"selection": {"directReference": {"structField": {"field": ` + string(rune('0'+i)) + `}}, "rootReference": {}}}}`
}

// A scalar call without its output_type (DataFusion's older plans; the
// validator refused "function \"gt\" without an output_type") gets the
// type its declared signature returns for its arguments' types:
// gt(i64, i64) is boolean, required since both arguments are.
func TestOutputTypeOfScalarCall(t *testing.T) {
	p := outputTypePlan(t, `"k", "d", "s"`, `{"filter": {"input": `+outputTypeRead+`, "condition": {"scalarFunction": {"functionReference": 1,
	  "arguments": [`+col(0)+`, {"value": {"literal": {"i64": "2"}}}]}}}}`)
	q, _, err := Validate(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := q.GetRelations()[0].GetRoot().GetInput().GetFilter().GetCondition().GetScalarFunction().GetOutputType()
	if out.GetBool() == nil || out.GetBool().GetNullability() != substraitpb.Type_NULLABILITY_REQUIRED {
		t.Fatalf("gt(i64, i64) typed %v, want a required boolean", out)
	}
	if p.GetRelations()[0].GetRoot().GetInput().GetFilter().GetCondition().GetScalarFunction().GetOutputType() != nil {
		t.Fatal("Validate changed its input")
	}
	if _, err := Read(q); err != nil {
		t.Fatalf("substrait-go's reading: %v", err)
	}
}

// Aggregate calls without an output_type are typed as the planner types
// its own (substraitfn.Aggregate): sum(i64) is a nullable i64,
// avg(decimal(15,2)) a nullable decimal(38, 16); an aggregate over them
// in a parent is typed from those.
func TestOutputTypeOfAggregateCall(t *testing.T) {
	agg := `{"aggregate": {"input": ` + outputTypeRead + `, "groupings": [{"groupingExpressions": [{"selection": {"directReference": {"structField": {"field": 2}}, "rootReference": {}}}]}],
	  "measures": [{"measure": {"functionReference": 2, "arguments": [` + col(0) + `]}},
	               {"measure": {"functionReference": 3, "arguments": [` + col(1) + `]}}]}}`
	// add(sum, sum) over the aggregate's output (s, sum, avg): i64.
	rel := `{"project": {"common": {"emit": {"outputMapping": [3]}}, "input": ` + agg + `, "expressions": [{"scalarFunction": {"functionReference": 4, "arguments": [` + col(1) + `, ` + col(1) + `]}}]}}`
	q, _, err := Validate(outputTypePlan(t, `"x"`, rel), nil)
	if err != nil {
		t.Fatal(err)
	}
	pr := q.GetRelations()[0].GetRoot().GetInput().GetProject()
	ms := pr.GetInput().GetAggregate().GetMeasures()
	if o := ms[0].GetMeasure().GetOutputType(); o.GetI64() == nil || o.GetI64().GetNullability() != substraitpb.Type_NULLABILITY_NULLABLE {
		t.Fatalf("sum(i64) typed %v, want a nullable i64", o)
	}
	if o := ms[1].GetMeasure().GetOutputType().GetDecimal(); o == nil || o.GetPrecision() != 38 || o.GetScale() != 16 {
		t.Fatalf("avg(decimal(15,2)) typed %v, want decimal(38,16)", ms[1].GetMeasure().GetOutputType())
	}
	if o := pr.GetExpressions()[0].GetScalarFunction().GetOutputType(); o.GetI64() == nil {
		t.Fatalf("add(sum, sum) typed %v, want i64", o)
	}
}

// Emit-less projects that replace their input (older DataFusion's and
// DuckDB's reading, chosen by the root names as replacingProjects
// chooses it) are typed in that reading: the outer project's field 1 is
// the inner project's k (i64), not t's d, so add(k, k) is i64.
func TestOutputTypeUnderReplacingProjects(t *testing.T) {
	inner := `{"project": {"input": ` + outputTypeRead + `, "expressions": [{"selection": {"directReference": {"structField": {"field": 2}}, "rootReference": {}}}, {"selection": {"directReference": {"structField": {}}, "rootReference": {}}}]}}`
	rel := `{"project": {"input": ` + inner + `, "expressions": [{"scalarFunction": {"functionReference": 4, "arguments": [` + col(1) + `, ` + col(1) + `]}}]}}`
	q, _, err := Validate(outputTypePlan(t, `"x"`, rel), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := q.GetRelations()[0].GetRoot().GetInput().GetProject().GetExpressions()[0].GetScalarFunction().GetOutputType(); o.GetI64() == nil {
		t.Fatalf("add(k, k) typed %v, want i64", o)
	}
}

// A call whose result its arguments do not determine (a function with no
// declared signature here, or arguments no implementation takes) is
// refused as an invalid plan naming the function and the relation.
func TestOutputTypeNotDetermined(t *testing.T) {
	for name, call := range map[string]string{
		"frobnicate": `{"scalarFunction": {"functionReference": 5, "arguments": [` + col(0) + `]}}`,
		"add":        `{"scalarFunction": {"functionReference": 4, "arguments": [` + col(0) + `, ` + col(2) + `]}}`,
	} {
		rel := `{"project": {"common": {"emit": {"outputMapping": [3]}}, "input": ` + outputTypeRead + `, "expressions": [` + call + `]}}`
		_, _, err := Validate(outputTypePlan(t, `"x"`, rel), nil)
		if !errors.Is(err, ErrInvalidPlan) || !strings.Contains(err.Error(), `function "`+name+`" without an output_type`) || !strings.Contains(err.Error(), "root.input.project") {
			t.Fatalf("%s: got %v", name, err)
		}
	}
}
