package optimize

import (
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// A correlated scalar subquery over an aggregate whose correlation is not
// an equality (i.k > o.k) is the aggregate over the outer rows' distinct
// keys joined with its input on the correlation, grouped by those keys,
// LEFT joined back: on = where the correlation compares the outer column
// itself (NULL rejects), on IS NOT DISTINCT FROM where it does not (here
// under a not()).
func TestDecorrelateDependentAggregate(t *testing.T) {
	for _, tc := range []struct {
		name, corr, on string
	}{
		{"gt", dCall(6, dBool, dRef(0, 0), dRef(0, 1)), "equal"},
		{"not-gt", dCall(2, dBool, dCall(6, dBool, dRef(0, 0), dRef(0, 1))), "is_not_distinct_from"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			agg := `{"aggregate": {"common": {"direct": {}}, "input": ` + dFilter(dRead("i", "k", "v"), tc.corr) +
				`, "groupings": [], "measures": [{"measure": {"functionReference": 4, "outputType": ` + dI64 + `, "arguments": [{"value": ` + dRef(1, 0) + `}]}}]}}`
			cond := dCall(3, dBool, dRef(1, 0), `{"subquery": {"scalar": {"input": `+agg+`}}}`)
			p, rel, _ := decorrelated(t, dPlan(dFilter(dRead("o", "k", "v"), cond), "k", "v"))
			u := &unnester{p: p}
			u.declarations()
			j := rel.GetFilter().GetInput().GetJoin()
			if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT || j.GetLeft().GetRead() == nil {
				t.Fatalf("want a filter over a LEFT join of the outer read, got\n%s", protojson.Format(rel))
			}
			if c := j.GetExpression(); u.funcName(c) != tc.on || !proto.Equal(callArgs(c)[0], fieldExpr(0)) || !proto.Equal(callArgs(c)[1], fieldExpr(2)) {
				t.Fatalf("join condition %s, want %s(field 0, field 2)", protojson.Format(c), tc.on)
			}
			a := j.GetRight().GetAggregate()
			if a == nil || len(a.GetGroupingExpressions()) != 1 || !proto.Equal(a.GetGroupingExpressions()[0], fieldExpr(0)) || len(a.GetMeasures()) != 1 {
				t.Fatalf("want the aggregate grouped by the distinct key, got\n%s", protojson.Format(j.GetRight()))
			}
			if arg := a.GetMeasures()[0].GetMeasure().GetArguments()[0].GetValue(); !proto.Equal(arg, fieldExpr(2)) {
				t.Fatalf("measure argument %s, want field 2 (i.v after the key)", protojson.Format(arg))
			}
			dj := a.GetInput().GetJoin()
			if dj == nil || dj.GetType() != substraitpb.JoinRel_JOIN_TYPE_INNER || dj.GetRight().GetRead() == nil {
				t.Fatalf("want the inner join of the distinct keys and the subquery's read, got\n%s", protojson.Format(a.GetInput()))
			}
			d := dj.GetLeft().GetAggregate()
			if d == nil || len(d.GetMeasures()) != 0 || !proto.Equal(d.GetGroupingExpressions()[0], fieldExpr(0)) || d.GetInput().GetRead() == nil ||
				d.GetInput() == j.GetLeft() {
				t.Fatalf("want the distinct outer keys over a copy of the outer read, got\n%s", protojson.Format(dj.GetLeft()))
			}
			gt := dj.GetExpression()
			if tc.on == "is_not_distinct_from" {
				gt = callArgs(gt)[0]
			}
			sameProtoExpr(t, "correlation", gt, dCall(6, dBool, dRef(1, 0), dRef(0, 0)))
		})
	}
}

// A correlated subquery whose WHERE also holds a subquery, as the SQL
// front end writes it (the subquery conjunct's filter over the filter of
// the others, the correlation among them): the correlation is pulled up
// over the inner semi join, where flatten takes it, instead of being left
// under a join (once "outer reference inside a JoinRel").
func TestDecorrelatePullsCorrelationOverSubqueryJoin(t *testing.T) {
	innerExists := `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": ` + dRead("s", "k") + `}}}`
	sub := dFilter(dFilter(dRead("i", "k", "v"), dCall(6, dBool, dRef(0, 0), dRef(0, 1))), innerExists)
	exists := `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": ` + sub + `}}}`
	_, rel, _ := decorrelated(t, dPlan(dFilter(dRead("o", "k", "v"), exists), "k", "v"))
	j := rel.GetJoin()
	if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI || j.GetRight().GetJoin().GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI {
		t.Fatalf("want the outer semi join over the subquery's own semi join, got\n%s", protojson.Format(rel))
	}
	sameProtoExpr(t, "correlation", j.GetExpression(), dCall(6, dBool, dRef(2, 0), dRef(0, 0)))
}
