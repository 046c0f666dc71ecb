package ingest

import (
	"slices"
	"strings"
	"testing"
)

// projectPlan is SELECT k + k FROM t(k, v) as a project without an emit
// under an aggregate-free root with the given root names, over a second
// emit-less project (k, v -> k * 2): DuckDB's shape, whose projects
// replace their input.
func projectPlan(names ...string) []byte {
	ref := func(f string) string {
		return `{"selection": {"directReference": {"structField": {"field": ` + f + `}}, "rootReference": {}}}`
	}
	add := func(a, b string) string {
		return `{"scalarFunction": {"functionReference": 1, "outputType": {"i64": {}}, "arguments": [{"value": ` + a + `}, {"value": ` + b + `}]}}`
	}
	return []byte(`{
	  "extensionUrns": [{"extensionUrnAnchor": 1, "urn": "extension:io.substrait:functions_arithmetic"}],
	  "extensions": [{"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 1, "name": "add:i64_i64"}}],
	  "relations": [{"root": {"names": ["` + strings.Join(names, `", "`) + `"], "input": {"project": {
	    "input": {"project": {
	      "input": {"read": {"baseSchema": {"names": ["k", "v"], "struct": {"types": [{"i64": {}}, {"i64": {}}]}}, "namedTable": {"names": ["t"]}}},
	      "expressions": [` + add(ref("0"), ref("0")) + `]}},
	    "expressions": [` + add(ref("0"), ref("0")) + `]}}}}]}`)
}

// A DuckDB plan's projects carry no emit and replace their input: its root
// names count the top project's expressions only. Such a plan was
// refused by substrait-go ("root relation has 1 output name(s) but the
// output schema requires 4"); now each emit-less project gets the emit
// that keeps its expressions, and the inner one's expression is what the
// outer one's field 0 reads. A plan whose names count the spec's reading
// is read by the spec.
func TestProjectsReplacingTheirInput(t *testing.T) {
	emits := func(names ...string) [][]int32 {
		p, err := DecodePlan(projectPlan(names...))
		if err != nil {
			t.Fatal(err)
		}
		q, _, err := Validate(p, nil)
		if err != nil {
			t.Fatalf("%v: %v", names, err)
		}
		if p.GetRelations()[0].GetRoot().GetInput().GetProject().GetCommon() != nil {
			t.Fatal("Validate changed its input")
		}
		var out [][]int32
		for r := q.GetRelations()[0].GetRoot().GetInput(); r.GetProject() != nil; r = r.GetProject().GetInput() {
			out = append(out, r.GetProject().GetCommon().GetEmit().GetOutputMapping())
		}
		return out
	}
	// DuckDB's reading: outer [1] (its input, the inner project, is one
	// column now), inner [2] (after k and v).
	if got := emits("x"); !slices.EqualFunc(got, [][]int32{{1}, {2}}, slices.Equal) {
		t.Errorf("names for the expressions alone: emits %v, want [[1] [2]]", got)
	}
	// The spec's reading: 2 + 1 + 1 columns, no emit given.
	if got := emits("k", "v", "a", "b"); !slices.EqualFunc(got, [][]int32{nil, nil}, slices.Equal) {
		t.Errorf("names for the spec's reading: emits %v, want none", got)
	}
	// Neither: left to the root's check, unchanged.
	if got := emits("a", "b"); !slices.EqualFunc(got, [][]int32{nil, nil}, slices.Equal) {
		t.Errorf("names for neither reading: emits %v, want none", got)
	}
}

// Isthmus writes ROLLUP and CUBE as an aggregate with several groupings,
// and root names for the spec's width: each distinct key, the measures,
// then the grouping set's index. substrait-go computes another width for
// it ("root relation has 3 output name(s) but the output schema requires
// 5"); the validator rewrites it into one grouping over the input crossed
// with the set ids (groupingsets.go), which substrait-go reads.
func TestSeveralGroupingsRewritten(t *testing.T) {
	ref := func(f string) string {
		return `{"selection": {"directReference": {"structField": {"field": ` + f + `}}, "rootReference": {}}}`
	}
	p, err := DecodePlan([]byte(`{"relations": [{"root": {"names": ["k", "v", "g"], "input": {"aggregate": {"common": {"direct": {}},
	  "input": {"read": {"baseSchema": {"names": ["k", "v"], "struct": {"types": [{"i64": {}}, {"i64": {}}]}}, "namedTable": {"names": ["t"]}}},
	  "groupingExpressions": [` + ref("0") + `, ` + ref("1") + `],
	  "groupings": [{"expressionReferences": [0, 1]}, {"expressionReferences": [0]}, {}]}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	q, _, err := Validate(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := q.GetRelations()[0].GetRoot().GetInput().GetAggregate()
	if len(a.GetGroupings()) != 1 || len(a.GetGroupings()[0].GetGroupingExpressions()) != 3 { //nolint:staticcheck // the form written
		t.Fatalf("not one grouping by the two keys and the set id: %v", a)
	}
	sp, err := Read(q)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sp.Relations()[0].Root().RecordType().Names); n != 3 {
		t.Fatalf("root has %d columns, want 3", n)
	}
}
