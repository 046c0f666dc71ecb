package optimize

import (
	"fmt"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// A LEFT join's EXISTS over its right side (i.v, field 3 of the join)
// becomes a mark join of the right input, whose mark the condition
// reads, and the join's emit keeps the mark out of its output; the outer
// reference, one level in and to the join's field 3, reads the right
// input's field 1.
func TestOuterJoinRightSideSubquery(t *testing.T) {
	exists := `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": ` +
		dFilter(dRead("s", "k"), dCall(1, dBool, dRef(0, 0), dRef(3, 1))) + `}}}`
	cond := dCall(99, dBool, dCall(1, dBool, dRef(0, 0), dRef(2, 0)), exists)
	p, widths := decode(t, dPlan(`{"join": {"common": {"direct": {}}, "left": `+dRead("o", "k", "v")+`, "right": `+dRead("i", "k", "v")+
		`, "expression": `+cond+`, "type": "JOIN_TYPE_LEFT"}}`, "k", "v", "k2", "v2"))
	if err := Decorrelate(p, widths, nil); err != nil {
		t.Fatal(err)
	}
	j := p.GetRelations()[0].GetRoot().GetInput().GetJoin()
	if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT || hasSubquery(j) {
		t.Fatalf("want a LEFT join without subqueries, got %v", p)
	}
	if got := fmt.Sprint(j.GetCommon().GetEmit().GetOutputMapping()); got != "[0 1 2 3]" {
		t.Fatalf("join emit %s, want [0 1 2 3]", got)
	}
	mark := j.GetRight().GetJoin()
	if mark == nil || mark.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK {
		t.Fatalf("right input: want a mark join, got %v", j.GetRight())
	}
	// The mark's condition compares s.k (field 2 of the mark join: the
	// right input's two fields first) with the right input's field 1.
	sameProtoExpr(t, "mark condition", mark.GetExpression(), dCall(1, dBool, dRef(2, 0), dRef(1, 0)))
}
