package substraitfn

import (
	"strings"
	"testing"

	"github.com/substrait-io/substrait"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// TestCollectionDeclaresStandardURNs: every file substrait-go's default
// collection loads is declared by its URN, and no function is.
func TestCollectionDeclaresStandardURNs(t *testing.T) {
	c, err := Collection()
	if err != nil {
		t.Fatal(err)
	}
	full, err := Full()
	if err != nil {
		t.Fatal(err)
	}
	ents, err := substrait.GetSubstraitExtensionsFS().ReadDir("extensions")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if skipped[e.Name()] {
			continue
		}
		urn := extensions.SubstraitDefaultURNPrefix + strings.TrimSuffix(e.Name(), ".yaml")
		if !full.URNLoaded(urn) {
			t.Fatalf("%s: the default collection lacks %s", e.Name(), urn)
		}
		if !c.URNLoaded(urn) {
			t.Fatalf("%s: not declared", urn)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d standard files", n)
	}
	if _, ok := c.GetScalarFunc(extensions.ID{URN: URNComparison, Name: "equal:any_any"}); ok {
		t.Fatal("the light collection declares functions")
	}
}

// sparsePlan filters t(a, b, c) by and(equal(a, b), c) with the function
// anchors numbered 7 and 2, as an outside producer may number them.
const sparsePlan = `{
 "extensionUrns": [
  {"extensionUrnAnchor": 1, "urn": "extension:io.substrait:functions_comparison"},
  {"extensionUrnAnchor": 2, "urn": "extension:io.substrait:functions_boolean"}],
 "extensions": [
  {"extensionFunction": {"extensionUrnReference": 2, "functionAnchor": 7, "name": "and:bool"}},
  {"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 2, "name": "equal:any_any"}}],
 "relations": [{"root": {"names": ["a", "b", "c"], "input": {"filter": {
  "input": {"read": {"baseSchema": {"names": ["a", "b", "c"], "struct": {"types": [
    {"i64": {"nullability": "NULLABILITY_REQUIRED"}}, {"i64": {"nullability": "NULLABILITY_REQUIRED"}},
    {"bool": {"nullability": "NULLABILITY_REQUIRED"}}], "nullability": "NULLABILITY_REQUIRED"}},
   "namedTable": {"names": ["t"]}}},
  "condition": {"scalarFunction": {"functionReference": 7,
   "outputType": {"bool": {"nullability": "NULLABILITY_REQUIRED"}},
   "arguments": [
    {"value": {"scalarFunction": {"functionReference": 2,
     "outputType": {"bool": {"nullability": "NULLABILITY_REQUIRED"}},
     "arguments": [
      {"value": {"selection": {"directReference": {"structField": {"field": 0}}, "rootReference": {}}}},
      {"value": {"selection": {"directReference": {"structField": {"field": 1}}, "rootReference": {}}}}]}}},
    {"value": {"selection": {"directReference": {"structField": {"field": 2}}, "rootReference": {}}}}]}}}}}}]
}`

// TestFromProtoReadsStandardFunctions: an outside plan with standard
// functions (one of them "and:bool", whose signature substrait-go's type
// grammar cannot parse) and sparse anchors reads against the light
// collection with every call named as declared, without touching the
// caller's plan and without the full collection.
func TestFromProtoReadsStandardFunctions(t *testing.T) {
	var pb substraitpb.Plan
	if err := protojson.Unmarshal([]byte(sparsePlan), &pb); err != nil {
		t.Fatal(err)
	}
	orig := proto.Clone(&pb)
	before := Fallbacks()
	sp, err := FromProto(&pb)
	if err != nil {
		t.Fatal(err)
	}
	if Fallbacks() != before {
		t.Fatal("read against the full collection")
	}
	if !proto.Equal(orig, &pb) {
		t.Fatal("FromProto modified its input")
	}
	cond := sp.GetRoots()[0].Input().(*splan.FilterRel).Condition().(*expr.ScalarFunction)
	inner, ok := cond.Arg(0).(*expr.ScalarFunction)
	if cond.Name() != "and" || !ok || inner.Name() != "equal" {
		t.Fatalf("read as %s", cond)
	}
	for _, f := range []*expr.ScalarFunction{cond, inner} {
		id, ok := sp.ExtensionRegistry().DecodeFunc(f.FuncRef())
		if !ok || !strings.HasPrefix(id.Name, f.Name()+":") {
			t.Fatalf("%s: anchor %d decodes to %v", f.Name(), f.FuncRef(), id)
		}
	}
}

// TestFromProtoUnknownURN: a URN no standard file declares (an outside
// producer's own extension) reads: its functions come back as custom
// functions under their declared names, for the planner to accept or
// name. A URN of a form substrait-go refuses fails with an error, not a
// panic.
func TestFromProtoUnknownURN(t *testing.T) {
	var pb substraitpb.Plan
	js := strings.Replace(sparsePlan, "extension:io.substrait:functions_boolean", "extension:example:nope", 1)
	if err := protojson.Unmarshal([]byte(js), &pb); err != nil {
		t.Fatal(err)
	}
	sp, err := FromProto(&pb)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := Collection(); c.URNLoaded("extension:example:nope") {
		t.Fatal("the shared collection was modified")
	}
	cond := sp.GetRoots()[0].Input().(*splan.FilterRel).Condition().(*expr.ScalarFunction)
	if id, ok := sp.ExtensionRegistry().DecodeFunc(cond.FuncRef()); !ok || id.URN != "extension:example:nope" || cond.Name() != "and" {
		t.Fatalf("read as %s (%v)", cond, id)
	}
	js = strings.Replace(sparsePlan, "extension:io.substrait:functions_boolean", "not a urn", 1)
	if err := protojson.Unmarshal([]byte(js), &pb); err != nil {
		t.Fatal(err)
	}
	if _, err := FromProto(&pb); err == nil {
		t.Fatal("read a plan with a malformed URN")
	}
}
