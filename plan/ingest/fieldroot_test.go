package ingest

import "testing"

// DataFusion's older plans write a field reference without its root
// (the consumer test suite's relation snapshots): "field reference
// without a root" was refused. It reads its input, as DataFusion's
// consumer reads it: the normalized plan has root_reference, the input
// plan is not changed, and substrait-go reads the result.
func TestFieldReferenceWithoutRoot(t *testing.T) {
	p, err := DecodePlan([]byte(`{"relations": [{"root": {"names": ["s"], "input": {"project": {
	  "common": {"emit": {"outputMapping": [2]}},
	  "input": {"read": {"baseSchema": {"names": ["k", "s"], "struct": {"types": [{"i64": {}}, {"string": {}}]}}, "namedTable": {"names": ["t"]}}},
	  "expressions": [{"selection": {"directReference": {"structField": {"field": 1}}}}]}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	q, _, err := Validate(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := q.GetRelations()[0].GetRoot().GetInput().GetProject().GetExpressions()[0].GetSelection()
	if got.GetRootReference() == nil {
		t.Fatalf("normalized reference %v, want a root_reference", got)
	}
	if p.GetRelations()[0].GetRoot().GetInput().GetProject().GetExpressions()[0].GetSelection().GetRootType() != nil {
		t.Fatal("Validate changed its input")
	}
	if _, err := Read(q); err != nil {
		t.Fatalf("substrait-go's reading: %v", err)
	}
}
