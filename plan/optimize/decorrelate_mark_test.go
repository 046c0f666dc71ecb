package optimize

import (
	"fmt"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// An EXISTS used as a value (here equal(EXISTS (...), true), a filter
// conjunct that is not the subquery alone) is a LEFT MARK join of the
// filter's input: its equality correlation is the join's condition (a
// hash key), the subquery's rows with a NULL inner key are filtered out
// first, and the value is the mark ANDed with outer IS NOT NULL (the
// subquery is empty for a NULL outer key: FALSE, never NULL); an emit
// keeps the mark out of the filter's output.
func TestDecorrelateMarkExists(t *testing.T) {
	sub := dFilter(dRead("i", "k", "v"), dCall(1, dBool, dRef(0, 0), dRef(0, 1)))
	exists := `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": ` + sub + `}}}`
	p, rel, widths := decorrelated(t, dPlan(dFilter(dRead("o", "k", "v"), dCall(1, dBool, exists, `{"literal": {"boolean": true}}`)), "k", "v"))
	f := rel.GetFilter()
	j := f.GetInput().GetJoin()
	if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK || widths[f.GetInput()] != 3 {
		t.Fatalf("want a filter over a LEFT MARK join of width 3, got\n%s", protojson.Format(rel))
	}
	if e := f.GetCommon().GetEmit(); e == nil || fmt.Sprint(e.GetOutputMapping()) != "[0 1]" {
		t.Fatalf("filter emit %v, want [0 1]", f.GetCommon().GetEmit())
	}
	sameProtoExpr(t, "condition", j.GetExpression(), dCall(1, dBool, dRef(2, 0), dRef(0, 0)))
	u := &unnester{p: p}
	u.declarations()
	rf := j.GetRight().GetFilter()
	if rf == nil || u.funcName(rf.GetCondition()) != "is_not_null" || !proto.Equal(callArgs(rf.GetCondition())[0], fieldExpr(0)) {
		t.Fatalf("right side %s, want the read filtered by is_not_null(k)", protojson.Format(j.GetRight()))
	}
	v := callArgs(f.GetCondition())[0]
	if u.funcName(v) != "and" || len(callArgs(v)) != 2 || u.funcName(callArgs(v)[0]) != "is_not_null" ||
		!proto.Equal(callArgs(callArgs(v)[0])[0], fieldExpr(0)) || !proto.Equal(callArgs(v)[1], fieldExpr(2)) {
		t.Fatalf("value %s, want and(is_not_null(field 0), field 2)", protojson.Format(v))
	}
}

// x > ALL (S) in a project is NOT of the mark of x <= y (the negated
// comparison, the join's condition as it is, so a NULL on either side
// makes its pair NULL), over an uncorrelated subquery; a correlation
// that is not an equality is coalesce(c, false): NULL filters a row out
// of the subquery, so it must not make the mark NULL.
func TestDecorrelateMarkAll(t *testing.T) {
	all := func(sub string) string {
		return `{"subquery": {"setComparison": {"reductionOp": "REDUCTION_OP_ALL", "comparisonOp": "COMPARISON_OP_GT", "left": ` + dRef(1, 0) + `, "right": ` + sub + `}}}`
	}
	proj := `{"project": {"common": {"direct": {}}, "input": ` + dRead("o", "k", "v") + `, "expressions": [` + all(dRead("s", "k")) + `]}}`
	p, rel, _ := decorrelated(t, dPlan(proj, "k", "v", "m"))
	pr := rel.GetProject()
	j := pr.GetInput().GetJoin()
	if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK {
		t.Fatalf("want a project over a LEFT MARK join, got\n%s", protojson.Format(rel))
	}
	if e := pr.GetCommon().GetEmit(); e == nil || fmt.Sprint(e.GetOutputMapping()) != "[0 1 3]" {
		t.Fatalf("project emit %v, want [0 1 3]", pr.GetCommon().GetEmit())
	}
	u := &unnester{p: p}
	u.declarations()
	c := j.GetExpression()
	if u.funcName(c) != "lte" || !proto.Equal(callArgs(c)[0], fieldExpr(1)) || !proto.Equal(callArgs(c)[1], fieldExpr(2)) {
		t.Fatalf("condition %s, want lte(field 1, field 2)", protojson.Format(c))
	}
	v := pr.GetExpressions()[0]
	if u.funcName(v) != "not" || !proto.Equal(callArgs(v)[0], fieldExpr(2)) {
		t.Fatalf("value %s, want not(field 2)", protojson.Format(v))
	}

	corr := dFilter(dRead("i", "k", "v"), dCall(6, dBool, dRef(0, 0), dRef(0, 1)))
	proj = `{"project": {"common": {"direct": {}}, "input": ` + dRead("o", "k", "v") + `, "expressions": [` +
		`{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": ` + corr + `}}}]}}`
	p, rel, _ = decorrelated(t, dPlan(proj, "k", "v", "m"))
	u = &unnester{p: p}
	u.declarations()
	c = rel.GetProject().GetInput().GetJoin().GetExpression()
	if u.funcName(c) != "coalesce" || u.funcName(callArgs(c)[0]) != "gt" || callArgs(c)[1].GetLiteral().GetBoolean() {
		t.Fatalf("condition %s, want coalesce(gt(...), false)", protojson.Format(c))
	}
}

// An inner join whose condition holds a subquery (JOIN ... ON a AND x IN
// (S)) is the filter of that condition over the inner join on true, the
// same rows, and the filter is decorrelated: the IN conjunct a semi join
// of the joined rows, the plain conjunct a filter the join pass places
// on the join; the join's emit stays on top.
func TestDecorrelateInnerJoinCondition(t *testing.T) {
	in := `{"subquery": {"inPredicate": {"needles": [` + dRef(1, 0) + `], "haystack": ` + dRead("s", "k") + `}}}`
	cond := dCall(99, dBool, dCall(1, dBool, dRef(0, 0), dRef(2, 0)), in)
	join := `{"join": {"common": {"emit": {"outputMapping": [0, 3]}}, "left": ` + dRead("o", "k", "v") + `, "right": ` + dRead("i", "k", "v") +
		`, "expression": ` + cond + `, "type": "JOIN_TYPE_INNER"}}`
	_, rel, _ := decorrelated(t, dPlan(join, "k", "v"))
	semi := rel.GetJoin()
	if semi == nil || semi.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI {
		t.Fatalf("want a LEFT SEMI join on top, got\n%s", protojson.Format(rel))
	}
	if e := semi.GetCommon().GetEmit(); e == nil || fmt.Sprint(e.GetOutputMapping()) != "[0 3]" {
		t.Fatalf("emit %v, want the join's [0 3]", semi.GetCommon().GetEmit())
	}
	f := semi.GetLeft().GetFilter()
	if f == nil || f.GetInput().GetJoin().GetType() != substraitpb.JoinRel_JOIN_TYPE_INNER || !f.GetInput().GetJoin().GetExpression().GetLiteral().GetBoolean() {
		t.Fatalf("want the plain conjunct filtering the inner join on true, got\n%s", protojson.Format(semi.GetLeft()))
	}
	sameProtoExpr(t, "plain conjunct", f.GetCondition(), dCall(1, dBool, dRef(0, 0), dRef(2, 0)))
	sameProtoExpr(t, "semi condition", semi.GetExpression(), dCall(1, dBool, dRef(1, 0), dRef(4, 0)))
}

// A subquery in an aggregate's measure (sum(x IN (S)) here, max over an
// EXISTS) moves into a project under the aggregate, decorrelated as a
// project's: the measure reads the project's added column, a mark join's
// mark.
func TestDecorrelateAggregateArgument(t *testing.T) {
	in := `{"subquery": {"inPredicate": {"needles": [` + dRef(1, 0) + `], "haystack": ` + dRead("s", "k") + `}}}`
	agg := `{"aggregate": {"common": {"direct": {}}, "input": ` + dRead("o", "k", "v") +
		`, "groupings": [], "measures": [{"measure": {"functionReference": 4, "outputType": ` + dBool + `, "arguments": [{"value": ` + in + `}]}}]}}`
	_, rel, widths := decorrelated(t, dPlan(agg, "m"))
	a := rel.GetAggregate()
	p := a.GetInput().GetProject()
	if p == nil || widths[a.GetInput()] != 3 || len(p.GetExpressions()) != 1 {
		t.Fatalf("want the aggregate over a project of one column (width 3), got\n%s", protojson.Format(rel))
	}
	if arg := a.GetMeasures()[0].GetMeasure().GetArguments()[0].GetValue(); !proto.Equal(arg, fieldExpr(2)) {
		t.Fatalf("measure argument %s, want field 2", protojson.Format(arg))
	}
	if j := p.GetInput().GetJoin(); j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK {
		t.Fatalf("want the project over a LEFT MARK join, got\n%s", protojson.Format(p.GetInput()))
	}
	sameProtoExpr(t, "the project's value", p.GetExpressions()[0], dRef(2, 0))
}
