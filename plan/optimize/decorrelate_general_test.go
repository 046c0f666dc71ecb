package optimize

import (
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// dLateral is a JoinRel of type jt, which lateralPlan marks lateral:
// right may reach left's row through outer references steps_out 1.
func dLateral(jt, left, right string) string {
	return `{"join": {"common": {"direct": {}}, "left": ` + left + `, "right": ` + right + `, "expression": {"literal": {"boolean": true}}, "type": "` + jt + `"}}`
}

// lateralDecorrelated is decorrelated of a plan whose root's input, a
// join, is marked lateral (protojson cannot spell the enhancement's Any
// without its message type).
func lateralDecorrelated(t *testing.T, js string) (*substraitpb.Plan, *substraitpb.Rel) {
	t.Helper()
	p, widths := decode(t, js)
	root := p.GetRelations()[0].GetRoot()
	w := widths[root.GetInput()]
	root.GetInput().GetJoin().AdvancedExtension = substraitfn.LateralExtension()
	if err := Decorrelate(p, widths, nil); err != nil {
		t.Fatalf("Decorrelate: %v", err)
	}
	in := root.GetInput()
	if hasOuterRef(in) || widths[in] != w {
		t.Fatalf("an outer reference is left, or the width changed (%d, was %d):\n%s", widths[in], w, protojson.Format(in))
	}
	return p, in
}

// rels lists r and every relation under it.
func rels(r *substraitpb.Rel) []*substraitpb.Rel {
	out := []*substraitpb.Rel{r}
	switch t := r.GetRelType().(type) {
	case *substraitpb.Rel_Filter:
		out = append(out, rels(t.Filter.GetInput())...)
	case *substraitpb.Rel_Project:
		out = append(out, rels(t.Project.GetInput())...)
	case *substraitpb.Rel_Sort:
		out = append(out, rels(t.Sort.GetInput())...)
	case *substraitpb.Rel_Fetch:
		out = append(out, rels(t.Fetch.GetInput())...)
	case *substraitpb.Rel_Aggregate:
		out = append(out, rels(t.Aggregate.GetInput())...)
	case *substraitpb.Rel_Join:
		out = append(append(out, rels(t.Join.GetLeft())...), rels(t.Join.GetRight())...)
	case *substraitpb.Rel_Cross:
		out = append(append(out, rels(t.Cross.GetLeft())...), rels(t.Cross.GetRight())...)
	}
	return out
}

// A Substrait plan's LATERAL join whose right side is a top-N per outer
// row (Fetch 2 over a Sort over the correlated filter) is unnested by
// the optimizer: the fetch becomes row_number() partitioned by the
// domain's column, ordered by the sort's key, kept where <= 2, and the
// LEFT join meets the domain on IS NOT DISTINCT FROM (an outer NULL
// meets its own domain row). Nothing lateral, no fetch and no outer
// reference is left.
func TestDecorrelateLateralTopN(t *testing.T) {
	inner := dFilter(dRead("i", "k", "v"), dCall(1, dBool, dRef(0, 0), dRef(0, 1)))
	sorted := `{"sort": {"common": {"direct": {}}, "input": ` + inner + `, "sorts": [{"expr": ` + dRef(1, 0) + `, "direction": "SORT_DIRECTION_DESC_NULLS_FIRST"}]}}`
	fetch := `{"fetch": {"common": {"direct": {}}, "input": ` + sorted + `, "offset": "0", "count": "2"}}`
	p, rel := lateralDecorrelated(t, dPlan(dLateral("JOIN_TYPE_LEFT", dRead("o", "k", "v"), fetch), "ok", "ov", "ik", "iv"))
	u := &unnester{p: p}
	u.declarations()
	var window *substraitpb.Expression_WindowFunction
	var keep bool
	for _, r := range rels(rel) {
		if j := r.GetJoin(); j != nil {
			if substraitfn.IsLateralJoin(j.GetAdvancedExtension()) {
				t.Fatalf("a lateral join is left:\n%s", protojson.Format(rel))
			}
		}
		if r.GetFetch() != nil {
			t.Fatalf("a fetch is left under the unnested join:\n%s", protojson.Format(rel))
		}
		if pr := r.GetProject(); pr != nil {
			for _, e := range pr.GetExpressions() {
				if w := e.GetWindowFunction(); w != nil {
					window = w
				}
			}
		}
		if f := r.GetFilter(); f != nil && u.funcName(f.GetCondition()) == "lte" {
			keep = true
		}
	}
	if window == nil || u.funcs[window.GetFunctionReference()] != "row_number" || len(window.GetPartitions()) != 1 || len(window.GetSorts()) != 1 {
		t.Fatalf("want row_number() over (partition by the domain, order by i.v), got\n%s", protojson.Format(rel))
	}
	if window.GetSorts()[0].GetDirection() != substraitpb.SortField_SORT_DIRECTION_DESC_NULLS_FIRST {
		t.Fatalf("the window's order %v, want the sort's", window.GetSorts()[0].GetDirection())
	}
	if !keep {
		t.Fatalf("want a filter row_number <= 2, got\n%s", protojson.Format(rel))
	}
	top := rel.GetProject().GetInput().GetJoin()
	if top == nil || top.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT || top.GetLeft().GetRead() == nil {
		t.Fatalf("want a project over the LEFT join of the outer read, got\n%s", protojson.Format(rel))
	}
	if args := callArgs(top.GetExpression()); u.funcName(top.GetExpression()) != "and" || len(args) != 2 || u.funcName(args[1]) != "is_not_distinct_from" {
		t.Fatalf("want the join on true AND o.k IS NOT DISTINCT FROM the domain's k, got\n%s", protojson.Format(top.GetExpression()))
	}
}

// An outer reference two levels out (EXISTS inside EXISTS naming the
// outermost query) is one level out once the inner EXISTS is a join of
// the middle query, and is decorrelated with it: no outer reference is
// left, and the outermost read is copied into the domain the middle
// query's semi join is computed for.
func TestDecorrelateTwoLevels(t *testing.T) {
	innermost := dFilter(dRead("j", "k", "v"), dCall(3, dBool, dRef(1, 0), dRef(1, 2)))
	middle := dFilter(dRead("i", "k", "v"), dCall(99, dBool,
		dCall(1, dBool, dRef(0, 0), dRef(0, 1)),
		`{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": `+innermost+`}}}`))
	cond := `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": ` + middle + `}}}`
	_, rel, _ := decorrelated(t, dPlan(dFilter(dRead("o", "k", "v"), cond), "k", "v"))
	reads := 0
	for _, r := range rels(rel) {
		if names := r.GetRead().GetNamedTable().GetNames(); len(names) == 1 && names[0] == "o" {
			reads++
		}
	}
	if reads < 2 {
		t.Fatalf("want the outer read and its copy under the domain, got\n%s", protojson.Format(rel))
	}
}
