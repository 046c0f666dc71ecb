package optimize

import (
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// A correlated scalar subquery of a constant, o.k = (SELECT 5 FROM s
// WHERE s.k = o.v), reads 5 as a column of the single join's right side
// (s, then the project of 5: field 3 of the join), so an o row no s row
// meets compares with NULL, not 5.
func TestScalarSubqueryConstantIsNullExtended(t *testing.T) {
	sub := `{"project": {"common": {"emit": {"outputMapping": [1]}}, "input": ` +
		dFilter(dRead("s", "k"), dCall(1, dBool, dRef(0, 0), dRef(1, 1))) + `, "expressions": [{"literal": {"i64": "5"}}]}}`
	js := dPlan(dFilter(dRead("o", "k", "v"), dCall(1, dBool, dRef(0, 0), `{"subquery": {"scalar": {"input": `+sub+`}}}`)), "k", "v")
	_, in, _ := decorrelated(t, js)
	var single *substraitpb.JoinRel
	var cond *substraitpb.Expression
	walkRels(in, func(r *substraitpb.Rel) {
		if j := r.GetJoin(); j != nil && j.GetType() == substraitpb.JoinRel_JOIN_TYPE_LEFT_SINGLE {
			single = j
		}
		if f := r.GetFilter(); f != nil && cond == nil {
			cond = f.GetCondition()
		}
	})
	if single == nil {
		t.Fatalf("no single join in %v", in)
	}
	p := single.GetRight().GetProject()
	if p == nil || len(p.GetExpressions()) != 1 || p.GetExpressions()[0].GetLiteral().GetI64() != 5 {
		t.Fatalf("single join's right: want s with 5 projected, got %v", single.GetRight())
	}
	sameProtoExpr(t, "filter condition", cond, dCall(1, dBool, dRef(0, 0), dRef(3, 0)))
}
