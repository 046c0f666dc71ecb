package optimize

import (
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
)

// pushPlan is Q18's shape as Isthmus writes it: a filter over the cross
// product of o (k, v), a big table, and p (k, v), with the join
// conjunct o.k = p.k, p.v > 3, and a set conjunct set.
func pushPlan(set string) string {
	return dPlan(dFilter(dCross(dRead("o", "k", "v"), dRead("p", "k", "v")), dAnd(
		dCall(1, dBool, dRef(0, 0), dRef(2, 0)),
		dCall(6, dBool, dRef(3, 0), `{"literal": {"i64": "3"}}`),
		set)), "ok", "ov", "pk", "pv")
}

// decorrelatedWith is decorrelated with table sizes.
func decorrelatedWith(t *testing.T, js string, st Stats) *substraitpb.Rel {
	t.Helper()
	p, widths := decode(t, js)
	root := p.GetRelations()[0].GetRoot()
	if err := Decorrelate(p, widths, st); err != nil {
		t.Fatalf("Decorrelate: %v", err)
	}
	return root.GetInput()
}

var oBig = rows{"o": 1_000_000, "p": 1000, "i": 10}

// p.k IN (SELECT k FROM i) reads p alone: it is applied to p, after p's
// own conjunct, under the cross product; the join conjunct stays on top.
func TestSemiPushIn(t *testing.T) {
	in := `{"subquery": {"inPredicate": {"needles": [` + dRef(2, 0) + `], "haystack": ` + dRead("s", "k") + `}}}`
	rel := decorrelatedWith(t, pushPlan(in), oBig)
	f := rel.GetFilter()
	x := f.GetInput().GetCross()
	if x == nil {
		t.Fatalf("want the filter over the cross product, got\n%s", protojson.Format(rel))
	}
	sameProtoExpr(t, "the conjunct left on top", f.GetCondition(), dCall(1, dBool, dRef(0, 0), dRef(2, 0)))
	j := x.GetRight().GetJoin()
	if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI || j.GetLeft().GetFilter() == nil {
		t.Fatalf("want p filtered, then semi joined, got\n%s", protojson.Format(x.GetRight()))
	}
	sameProtoExpr(t, "p's own conjunct", j.GetLeft().GetFilter().GetCondition(), dCall(6, dBool, dRef(1, 0), `{"literal": {"i64": "3"}}`))
	sameProtoExpr(t, "semi join condition", j.GetExpression(), dCall(1, dBool, dRef(0, 0), dRef(2, 0)))
}

// A correlated NOT EXISTS on p is an anti join of p, its correlation
// moved to p's columns.
func TestSemiPushNotExists(t *testing.T) {
	sub := dFilter(dRead("i", "k", "v"), dCall(1, dBool, dRef(0, 0), dRef(3, 1)))
	ne := dCall(2, dBool, `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": `+sub+`}}}`)
	rel := decorrelatedWith(t, pushPlan(ne), oBig)
	j := rel.GetFilter().GetInput().GetCross().GetRight().GetJoin()
	if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_ANTI {
		t.Fatalf("want p anti joined under the cross product, got\n%s", protojson.Format(rel))
	}
	sameProtoExpr(t, "anti join condition", j.GetExpression(), dCall(1, dBool, dRef(2, 0), dRef(1, 0)))
}

// Left on top: a conjunct on the probe item (o, the largest), a NOT IN,
// an uncorrelated EXISTS.
func TestSemiPushLeft(t *testing.T) {
	exists := func(sub string) string {
		return `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": ` + sub + `}}}`
	}
	for name, set := range map[string]string{
		"probe-item":          `{"subquery": {"inPredicate": {"needles": [` + dRef(0, 0) + `], "haystack": ` + dRead("s", "k") + `}}}`,
		"not-in":              dCall(2, dBool, `{"subquery": {"inPredicate": {"needles": [`+dRef(2, 0)+`], "haystack": `+dRead("s", "k")+`}}}`),
		"uncorrelated-exists": exists(dRead("i", "k", "v")),
	} {
		t.Run(name, func(t *testing.T) {
			rel := decorrelatedWith(t, pushPlan(set), oBig)
			j := rel.GetJoin()
			if j == nil || (j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI && j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_ANTI) ||
				j.GetLeft().GetFilter().GetInput().GetCross() == nil {
				t.Fatalf("want the semi or anti join over the whole filtered cross product, got\n%s", protojson.Format(rel))
			}
		})
	}
}

// An item that is already a filter over its table (the SQL front end
// writes a FROM item's own conjuncts so) is estimated by its table's rows,
// a quarter kept per conjunct, not as an unknown relation: in TPC-H Q20's
// shape, s (100 rows) IN (...) beside n (25 rows, filtered) is the probe
// item's conjunct and stays on top, as PostgreSQL-sized estimates have it.
func TestSemiPushProbeSeesItemFilter(t *testing.T) {
	in := `{"subquery": {"inPredicate": {"needles": [` + dRef(0, 0) + `], "haystack": ` + dRead("i", "k") + `}}}`
	n := dFilter(dRead("n", "k", "v"), dCall(6, dBool, dRef(1, 0), `{"literal": {"i64": "3"}}`))
	js := dPlan(dFilter(dCross(dRead("s", "k", "v"), n), dAnd(dCall(1, dBool, dRef(0, 0), dRef(2, 0)), in)), "sk", "sv", "nk", "nv")
	rel := decorrelatedWith(t, js, rows{"s": 100, "n": 25, "i": 10})
	j := rel.GetJoin()
	if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI || j.GetLeft().GetFilter().GetInput().GetCross() == nil {
		t.Fatalf("want the semi join over the whole filtered cross product (s is the probe item), got\n%s", protojson.Format(rel))
	}
}
