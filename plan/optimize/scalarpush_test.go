package optimize

import (
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
)

// scalarPushPlan is TPC-DS Q6's shape as the SQL front end writes it: a
// filter of the scalar-subquery conjunct sc over the filter of the join
// conjunct o.k = p.k over the cross product of o (k, v), the big table,
// and p (k, v).
func scalarPushPlan(sc string) string {
	return dPlan(dFilter(dFilter(dCross(dRead("o", "k", "v"), dRead("p", "k", "v")), dCall(1, dBool, dRef(0, 0), dRef(2, 0))), sc),
		"ok", "ov", "pk", "pv")
}

func maxOf(input string, col int) string {
	return `{"aggregate": {"common": {"direct": {}}, "input": ` + input +
		`, "groupings": [], "measures": [{"measure": {"functionReference": 4, "outputType": ` + dI64 + `, "arguments": [{"value": ` + dRef(col, 0) + `}]}}]}}`
}

// p.v = (SELECT max(v) FROM i), uncorrelated, and p.v < (SELECT max(v)
// FROM i WHERE i.k = p.k), correlated, read p alone: each filters p, a
// LEFT SINGLE or LEFT join of p under the cross product, PostgreSQL's
// restriction of p (distribute_qual_to_rels places a qual by its
// relations, a SubPlan's parameters counted). Before, both were
// evaluated over the whole joined product.
func TestScalarPushToItem(t *testing.T) {
	for _, tc := range []struct {
		name, cond string
		join       substraitpb.JoinRel_JoinType
	}{
		{"uncorrelated", dCall(1, dBool, dRef(3, 0), `{"subquery": {"scalar": {"input": `+maxOf(dRead("i", "k", "v"), 1)+`}}}`),
			substraitpb.JoinRel_JOIN_TYPE_LEFT_SINGLE},
		{"correlated", dCall(3, dBool, dRef(3, 0), `{"subquery": {"scalar": {"input": `+
			maxOf(dFilter(dRead("i", "k", "v"), dCall(1, dBool, dRef(0, 0), dRef(2, 1))), 1)+`}}}`),
			substraitpb.JoinRel_JOIN_TYPE_LEFT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rel := decorrelatedWith(t, scalarPushPlan(tc.cond), oBig)
			// What is left on top: the join conjunct's filter over the
			// cross product, no join above it.
			f := rel.GetFilter()
			x := f.GetInput().GetCross()
			if x == nil {
				t.Fatalf("want the join filter over the cross product, got\n%s", protojson.Format(rel))
			}
			sameProtoExpr(t, "the conjunct left on top", f.GetCondition(), dCall(1, dBool, dRef(0, 0), dRef(2, 0)))
			if x.GetLeft().GetRead() == nil {
				t.Fatalf("o (the probe item) is not read alone:\n%s", protojson.Format(x.GetLeft()))
			}
			pf := x.GetRight().GetFilter()
			j := pf.GetInput().GetJoin()
			if j == nil || j.GetType() != tc.join || j.GetLeft().GetRead() == nil {
				t.Fatalf("want p filtered over its %v join, got\n%s", tc.join, protojson.Format(x.GetRight()))
			}
			// The conjunct reads p's own columns (p.v is field 1 of p).
			if got := callArgs(pf.GetCondition())[0]; got.GetSelection().GetDirectReference().GetStructField().GetField() != 1 {
				t.Fatalf("conjunct over p: %s", protojson.Format(pf.GetCondition()))
			}
			if tc.join == substraitpb.JoinRel_JOIN_TYPE_LEFT {
				// The correlation i.k = p.k, moved to p's columns: p.k
				// is field 0 of the join's left.
				sameProtoExpr(t, "the correlation", j.GetExpression(), dCall(1, dBool, dRef(0, 0), dRef(2, 0)))
			}
			if e := pf.GetCommon().GetEmit(); e == nil || len(e.GetOutputMapping()) != 2 {
				t.Fatalf("p's filter emits %v, want p's 2 columns", pf.GetCommon().GetEmit())
			}
		})
	}
}

// Left on top: a conjunct on the probe item (o), one over two items, one
// naming no item.
func TestScalarPushLeft(t *testing.T) {
	sub := `{"subquery": {"scalar": {"input": ` + maxOf(dRead("i", "k", "v"), 1) + `}}}`
	for name, cond := range map[string]string{
		"probe-item": dCall(1, dBool, dRef(1, 0), sub),
		"two-items":  dCall(1, dBool, dRef(3, 0), `{"subquery": {"scalar": {"input": `+maxOf(dFilter(dRead("i", "k", "v"), dCall(1, dBool, dRef(0, 0), dRef(1, 1))), 1)+`}}}`),
		"no-item":    dCall(1, dBool, sub, `{"literal": {"i64": "3"}}`),
	} {
		t.Run(name, func(t *testing.T) {
			rel := decorrelatedWith(t, scalarPushPlan(cond), oBig)
			x := findCross(rel)
			if x == nil {
				t.Fatalf("no cross product in\n%s", protojson.Format(rel))
			}
			if x.GetLeft().GetRead() == nil || x.GetRight().GetRead() == nil {
				t.Fatalf("want both items read alone under the cross product, got\n%s", protojson.Format(rel))
			}
		})
	}
}

// findCross is the first cross product under r, through filters, joins'
// left inputs and projects.
func findCross(r *substraitpb.Rel) *substraitpb.CrossRel {
	for r != nil {
		switch t := r.GetRelType().(type) {
		case *substraitpb.Rel_Cross:
			return t.Cross
		case *substraitpb.Rel_Filter:
			r = t.Filter.GetInput()
		case *substraitpb.Rel_Join:
			r = t.Join.GetLeft()
		case *substraitpb.Rel_Project:
			r = t.Project.GetInput()
		default:
			return nil
		}
	}
	return nil
}
