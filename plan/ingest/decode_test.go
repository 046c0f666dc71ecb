package ingest

import (
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// DuckDB writes the join types by their old names (TPC-H Q18:
// "JOIN_TYPE_SEMI"), which protojson refused ("invalid value for enum
// field type"). They read as the types of the same numbers; a string
// literal that spells one is data, and stays as it is.
func TestRenamedJoinTypes(t *testing.T) {
	read := `{"read": {"baseSchema": {"names": ["k"], "struct": {"types": [{"string": {}}]}}, "namedTable": {"names": ["t"]}}}`
	eq := `{"scalarFunction": {"functionReference": 1, "outputType": {"bool": {}}, "arguments": [
	  {"value": {"selection": {"directReference": {"structField": {"field": 0}}, "rootReference": {}}}},
	  {"value": {"literal": {"string": "JOIN_TYPE_ANTI"}}}]}}`
	for old, want := range map[string]substraitpb.JoinRel_JoinType{
		"JOIN_TYPE_SEMI":      substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI,
		"JOIN_TYPE_ANTI":      substraitpb.JoinRel_JOIN_TYPE_LEFT_ANTI,
		"JOIN_TYPE_SINGLE":    substraitpb.JoinRel_JOIN_TYPE_LEFT_SINGLE,
		"JOIN_TYPE_LEFT_SEMI": substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI,
	} {
		js := `{"extensionUrns": [{"extensionUrnAnchor": 1, "urn": "extension:io.substrait:functions_comparison"}],
		  "extensions": [{"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 1, "name": "equal"}}],
		  "relations": [{"root": {"names": ["k"], "input": {"join": {"type": "` + old + `",
		    "left": ` + read + `, "right": ` + read + `, "expression": ` + eq + `}}}}]}`
		p, err := DecodePlan([]byte(js))
		if err != nil {
			t.Fatalf("%s: %v", old, err)
		}
		j := p.GetRelations()[0].GetRoot().GetInput().GetJoin()
		if j.GetType() != want {
			t.Errorf("%s: join type %v, want %v", old, j.GetType(), want)
		}
		if s := j.GetExpression().GetScalarFunction().GetArguments()[1].GetValue().GetLiteral().GetString_(); s != "JOIN_TYPE_ANTI" {
			t.Errorf("%s: the string literal became %q", old, s)
		}
	}
}
