package optimize

import (
	"fmt"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
)

// dCross is the cross product of two relations.
func dCross(l, r string) string {
	return `{"cross": {"common": {"direct": {}}, "left": ` + l + `, "right": ` + r + `}}`
}

// dAnd is the conjunction of conds.
func dAnd(conds ...string) string { return dCall(99, dBool, conds...) }

// q17Plan is TPC-H Q17's shape as Isthmus writes it: a filter over the
// cross product of o (k, v) and p (k, v), with the join conjunct o.k =
// p.k, the conjuncts on p given, and o.v < (SELECT max(i.v) FROM i
// WHERE i.k = p.k [AND i.v = o.v when both]).
func q17Plan(pConds []string, both bool) string {
	corr := dCall(1, dBool, dRef(0, 0), dRef(2, 1))
	if both {
		corr = dAnd(corr, dCall(1, dBool, dRef(1, 0), dRef(1, 1)))
	}
	agg := `{"aggregate": {"common": {"direct": {}}, "input": ` + dFilter(dRead("i", "k", "v"), corr) +
		`, "groupings": [], "measures": [{"measure": {"functionReference": 4, "outputType": ` + dI64 + `, "arguments": [{"value": ` + dRef(1, 0) + `}]}}]}}`
	conds := append([]string{dCall(1, dBool, dRef(0, 0), dRef(2, 0))}, pConds...)
	conds = append(conds, dCall(3, dBool, dRef(1, 0), `{"subquery": {"scalar": {"input": `+agg+`}}}`))
	return dPlan(dFilter(dCross(dRead("o", "k", "v"), dRead("p", "k", "v")), dAnd(conds...)), "ok", "ov", "pk", "pv")
}

// aggInput decorrelates js and returns the input of the aggregate the
// scalar subquery became.
func aggInput(t *testing.T, js string) *substraitpb.Rel {
	t.Helper()
	_, rel, _ := decorrelated(t, js)
	a := rel.GetFilter().GetInput().GetJoin().GetRight().GetAggregate()
	if a == nil {
		t.Fatalf("want a filter over a LEFT join with an aggregate, got\n%s", protojson.Format(rel))
	}
	return a.GetInput()
}

// The aggregate's input is inner joined with the distinct keys of the
// outer item the correlation names (p), filtered by p's own conjuncts:
// Q17's restriction, as DuckDB's delim join; the join emits the input's
// columns alone.
func TestRestrictQ17(t *testing.T) {
	in := aggInput(t, q17Plan([]string{dCall(6, dBool, dRef(3, 0), `{"literal": {"i64": "3"}}`)}, false))
	j := in.GetJoin()
	if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_INNER || j.GetLeft().GetRead() == nil {
		t.Fatalf("want i inner joined with the restriction, got\n%s", protojson.Format(in))
	}
	if e := j.GetCommon().GetEmit(); e == nil || fmt.Sprint(e.GetOutputMapping()) != "[0 1]" {
		t.Fatalf("join emit %v, want i's columns [0 1]", j.GetCommon().GetEmit())
	}
	sameProtoExpr(t, "join condition", j.GetExpression(), dCall(1, dBool, dRef(0, 0), dRef(2, 0)))
	a := j.GetRight().GetAggregate()
	if a == nil || len(a.GetMeasures()) != 0 || len(a.GetGroupingExpressions()) != 1 {
		t.Fatalf("want the restriction to be the distinct key (grouped, no measure), got\n%s", protojson.Format(j.GetRight()))
	}
	sameProtoExpr(t, "restriction key", a.GetGroupingExpressions()[0], dRef(0, 0))
	f := a.GetInput().GetFilter()
	if f == nil || f.GetInput().GetRead().GetNamedTable().GetNames()[0] != "p" {
		t.Fatalf("want the restriction over p filtered, got\n%s", protojson.Format(a.GetInput()))
	}
	sameProtoExpr(t, "restriction filter", f.GetCondition(), dCall(6, dBool, dRef(1, 0), `{"literal": {"i64": "3"}}`))
}

// No restriction where it would not restrict (p has no conjunct of its
// own) or would repeat the outer join (the keys are in o and p).
func TestRestrictNone(t *testing.T) {
	for name, js := range map[string]string{
		"no-own-conjunct":   q17Plan(nil, false),
		"keys-in-two-items": q17Plan([]string{dCall(6, dBool, dRef(3, 0), `{"literal": {"i64": "3"}}`)}, true),
	} {
		t.Run(name, func(t *testing.T) {
			if in := aggInput(t, js); in.GetRead() == nil {
				t.Fatalf("want the aggregate over i unrestricted, got\n%s", protojson.Format(in))
			}
		})
	}
}
