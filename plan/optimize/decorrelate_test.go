package optimize

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// The plans below read tables of two i64 columns (k, v), or one (s: k),
// and call the functions dExt declares:
// 1 equal, 2 not, 3 lt, 4 max, 5 count, 6 gt, 99 and.
const (
	dExt = `"extensionUrns": [
	  {"extensionUrnAnchor": 1, "urn": "extension:io.substrait:functions_comparison"},
	  {"extensionUrnAnchor": 2, "urn": "extension:io.substrait:functions_boolean"},
	  {"extensionUrnAnchor": 3, "urn": "extension:io.substrait:functions_arithmetic"},
	  {"extensionUrnAnchor": 4, "urn": "extension:io.substrait:functions_aggregate_generic"}],
	"extensions": [
	  {"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 1, "name": "equal:any_any"}},
	  {"extensionFunction": {"extensionUrnReference": 2, "functionAnchor": 2, "name": "not:bool"}},
	  {"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 3, "name": "lt:any_any"}},
	  {"extensionFunction": {"extensionUrnReference": 3, "functionAnchor": 4, "name": "max:i64"}},
	  {"extensionFunction": {"extensionUrnReference": 4, "functionAnchor": 5, "name": "count:any"}},
	  {"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 6, "name": "gt:any_any"}},
	  {"extensionFunction": {"extensionUrnReference": 2, "functionAnchor": 99, "name": "and:bool"}}]`
	dI64  = `{"i64": {"nullability": "NULLABILITY_NULLABLE"}}`
	dBool = `{"bool": {"nullability": "NULLABILITY_NULLABLE"}}`
)

// dRead reads table name of the given columns (all i64).
func dRead(name string, cols ...string) string {
	ts := make([]string, len(cols))
	for i := range ts {
		ts[i] = dI64
	}
	return `{"read": {"common": {"direct": {}}, "namedTable": {"names": ["` + name + `"]}, "baseSchema": {"names": ["` +
		strings.Join(cols, `", "`) + `"], "struct": {"nullability": "NULLABILITY_REQUIRED", "types": [` + strings.Join(ts, ", ") + `]}}}}`
}

// dRef is a reference to field i of the input, or with steps > 0 an
// outer reference steps out.
func dRef(i, steps int) string {
	root := `"rootReference": {}`
	if steps > 0 {
		root = fmt.Sprintf(`"outerReference": {"stepsOut": %d}`, steps)
	}
	return fmt.Sprintf(`{"selection": {"directReference": {"structField": {"field": %d}}, %s}}`, i, root)
}

// dCall calls the function at anchor fn.
func dCall(fn int, out string, args ...string) string {
	for i, a := range args {
		args[i] = `{"value": ` + a + `}`
	}
	return fmt.Sprintf(`{"scalarFunction": {"functionReference": %d, "outputType": %s, "arguments": [%s]}}`, fn, out, strings.Join(args, ", "))
}

// dFilter and dPlan wrap relations.
func dFilter(input, cond string) string {
	return `{"filter": {"common": {"direct": {}}, "input": ` + input + `, "condition": ` + cond + `}}`
}

func dPlan(input string, names ...string) string {
	return `{` + dExt + `, "relations": [{"root": {"names": ["` + strings.Join(names, `", "`) + `"], "input": ` + input + `}}]}`
}

// decode reads a JSON plan and computes every relation's width, as the
// Substrait ingest's validation does for Decorrelate.
func decode(t *testing.T, js string) (*substraitpb.Plan, map[*substraitpb.Rel]int) {
	t.Helper()
	p := &substraitpb.Plan{}
	if err := protojson.Unmarshal([]byte(js), p); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	widths := map[*substraitpb.Rel]int{}
	var rel func(r *substraitpb.Rel) int
	exprs := func(m proto.Message) {
		walkAll(m, func(s *substraitpb.Expression_Subquery) {
			for _, r := range []*substraitpb.Rel{s.GetScalar().GetInput(), s.GetSetPredicate().GetTuples(),
				s.GetInPredicate().GetHaystack(), s.GetSetComparison().GetRight()} {
				if r != nil {
					rel(r)
				}
			}
		})
	}
	rel = func(r *substraitpb.Rel) int {
		var w int
		var common *substraitpb.RelCommon
		switch t := r.GetRelType().(type) {
		case *substraitpb.Rel_Read:
			w, common = len(t.Read.GetBaseSchema().GetNames()), t.Read.GetCommon()
		case *substraitpb.Rel_Filter:
			w, common = rel(t.Filter.GetInput()), t.Filter.GetCommon()
			exprs(t.Filter.GetCondition())
		case *substraitpb.Rel_Project:
			w, common = rel(t.Project.GetInput())+len(t.Project.GetExpressions()), t.Project.GetCommon()
			exprs(t.Project)
		case *substraitpb.Rel_Sort:
			w, common = rel(t.Sort.GetInput()), t.Sort.GetCommon()
			exprs(t.Sort)
		case *substraitpb.Rel_Cross:
			w, common = rel(t.Cross.GetLeft())+rel(t.Cross.GetRight()), t.Cross.GetCommon()
		case *substraitpb.Rel_Fetch:
			w, common = rel(t.Fetch.GetInput()), t.Fetch.GetCommon()
		case *substraitpb.Rel_Join: // inner joins (and lateral left joins) only
			w, common = rel(t.Join.GetLeft())+rel(t.Join.GetRight()), t.Join.GetCommon()
			exprs(t.Join)
		case *substraitpb.Rel_Aggregate:
			rel(t.Aggregate.GetInput())
			exprs(t.Aggregate)
			w, common = len(t.Aggregate.GetGroupingExpressions())+len(t.Aggregate.GetMeasures()), t.Aggregate.GetCommon()
		default:
			panic(fmt.Sprintf("decode: relation %T", t))
		}
		if e := common.GetEmit(); e != nil {
			w = len(e.GetOutputMapping())
		}
		widths[r] = w
		return w
	}
	rel(p.GetRelations()[0].GetRoot().GetInput())
	return p, widths
}

// walkAll calls f on every subquery in m's expressions (not below them).
func walkAll(m proto.Message, f func(*substraitpb.Expression_Subquery)) {
	walkExprs(m.ProtoReflect(), func(e *substraitpb.Expression) bool {
		if s := e.GetSubquery(); s != nil {
			f(s)
			return false
		}
		return true
	})
}

// decorrelated runs Decorrelate on the plan js and checks what holds of
// every plan it leaves: no subquery or outer reference remains, and the
// root's input keeps its width. It returns the root's input.
func decorrelated(t *testing.T, js string) (*substraitpb.Plan, *substraitpb.Rel, map[*substraitpb.Rel]int) {
	t.Helper()
	p, widths := decode(t, js)
	root := p.GetRelations()[0].GetRoot()
	w := widths[root.GetInput()]
	if err := Decorrelate(p, widths, nil); err != nil {
		t.Fatalf("Decorrelate: %v", err)
	}
	in := root.GetInput()
	if hasOuterRef(in) || strings.Contains(protojson.Format(in), `"subquery"`) {
		t.Fatalf("a subquery or an outer reference is left:\n%s", protojson.Format(in))
	}
	if widths[in] != w {
		t.Fatalf("root input width %d, was %d", widths[in], w)
	}
	return p, in, widths
}

// sameProtoExpr fails unless e is the expression js.
func sameProtoExpr(t *testing.T, what string, e *substraitpb.Expression, js string) {
	t.Helper()
	want := &substraitpb.Expression{}
	if err := protojson.Unmarshal([]byte(js), want); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(e, want) {
		t.Fatalf("%s:\n%s\nwant\n%s", what, protojson.Format(e), protojson.Format(want))
	}
}

// A correlated EXISTS conjunct becomes a LEFT SEMI join on the
// correlation (outer field 0 is the join's field 0, the subquery's
// field 0 is field 2), and takes the filter's place.
func TestDecorrelateExists(t *testing.T) {
	sub := dFilter(dRead("i", "k", "v"), dCall(1, dBool, dRef(0, 0), dRef(0, 1)))
	js := dPlan(dFilter(dRead("o", "k", "v"), `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": `+sub+`}}}`), "k", "v")
	_, in, _ := decorrelated(t, js)
	j := in.GetJoin()
	if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI {
		t.Fatalf("want a LEFT SEMI join, got\n%s", protojson.Format(in))
	}
	if j.GetLeft().GetRead() == nil || j.GetRight().GetRead() == nil {
		t.Fatalf("want the join of the two reads, got\n%s", protojson.Format(in))
	}
	sameProtoExpr(t, "condition", j.GetExpression(), dCall(1, dBool, dRef(2, 0), dRef(0, 0)))
}

// NOT IN is a LEFT ANTI join on x = y OR x IS NULL OR y IS NULL
// (PostgreSQL's NULL rule for NOT IN), with or and is_null declared
// under their standard extension; the plain conjunct filters the
// input first.
func TestDecorrelateNotIn(t *testing.T) {
	in := `{"subquery": {"inPredicate": {"needles": [` + dRef(1, 0) + `], "haystack": ` + dRead("s", "k") + `}}}`
	cond := `{"scalarFunction": {"functionReference": 99, "outputType": ` + dBool + `, "arguments": [{"value": ` +
		dCall(6, dBool, dRef(0, 0), `{"literal": {"i64": "3"}}`) + `}, {"value": ` + dCall(2, dBool, in) + `}]}}`
	js := dPlan(dFilter(dRead("o", "k", "v"), cond), "k", "v")
	p, rel, _ := decorrelated(t, js)
	j := rel.GetJoin()
	if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_ANTI {
		t.Fatalf("want a LEFT ANTI join, got\n%s", protojson.Format(rel))
	}
	if f := j.GetLeft().GetFilter(); f == nil || f.GetInput().GetRead() == nil {
		t.Fatalf("want the plain conjunct to filter the read under the join, got\n%s", protojson.Format(j.GetLeft()))
	}
	u := &unnester{p: p}
	u.declarations()
	c := j.GetExpression()
	if u.funcName(c) != "or" || len(callArgs(c)) != 3 {
		t.Fatalf("condition %s, want or(x = y, x IS NULL, y IS NULL)", protojson.Format(c))
	}
	args := callArgs(c)
	sameProtoExpr(t, "x = y", args[0], dCall(1, dBool, dRef(1, 0), dRef(2, 0)))
	for i, x := range []int{1, 2} {
		if u.funcName(args[i+1]) != "is_null" || !proto.Equal(callArgs(args[i+1])[0], fieldExpr(x)) {
			t.Fatalf("argument %d: %s, want is_null(field %d)", i+1, protojson.Format(args[i+1]), x)
		}
	}
	a := c.GetScalarFunction().GetFunctionReference()
	if u.urns[a] != "extension:io.substrait:functions_boolean" {
		t.Fatalf("or declared under %q", u.urns[a])
	}
}

// A correlated scalar subquery over an ungrouped aggregate is that
// aggregate grouped by the correlation's inner side and LEFT joined on
// it; count's value over no rows, 0, is a coalesce over the join.
func TestDecorrelateScalarAggregate(t *testing.T) {
	for _, tc := range []struct {
		name, measure string
		coalesce      bool
	}{{"max", `{"functionReference": 4, "outputType": ` + dI64 + `, "arguments": [{"value": ` + dRef(1, 0) + `}]}`, false},
		{"count", `{"functionReference": 5, "outputType": {"i64": {"nullability": "NULLABILITY_REQUIRED"}}, "arguments": [{"value": ` + dRef(1, 0) + `}]}`, true}} {
		t.Run(tc.name, func(t *testing.T) {
			agg := `{"aggregate": {"common": {"direct": {}}, "input": ` + dFilter(dRead("i", "k", "v"), dCall(1, dBool, dRef(0, 0), dRef(0, 1))) +
				`, "groupings": [], "measures": [{"measure": ` + tc.measure + `}]}}`
			cond := dCall(3, dBool, dRef(1, 0), `{"subquery": {"scalar": {"input": `+agg+`}}}`)
			p, rel, widths := decorrelated(t, dPlan(dFilter(dRead("o", "k", "v"), cond), "k", "v"))
			f := rel.GetFilter()
			j := f.GetInput().GetJoin()
			if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT || widths[f.GetInput()] != 4 {
				t.Fatalf("want a filter over a LEFT join of width 4, got\n%s", protojson.Format(rel))
			}
			if e := f.GetCommon().GetEmit(); e == nil || fmt.Sprint(e.GetOutputMapping()) != "[0 1]" {
				t.Fatalf("filter emit %v, want [0 1]", f.GetCommon().GetEmit())
			}
			a := j.GetRight().GetAggregate()
			if a == nil || len(a.GetGroupingExpressions()) != 1 || !proto.Equal(a.GetGroupingExpressions()[0], fieldExpr(0)) || a.GetInput().GetRead() == nil {
				t.Fatalf("want the aggregate grouped by i.k over the read, got\n%s", protojson.Format(j.GetRight()))
			}
			sameProtoExpr(t, "join condition", j.GetExpression(), dCall(1, dBool, dRef(0, 0), dRef(2, 0)))
			u := &unnester{p: p}
			u.declarations()
			v := callArgs(f.GetCondition())[1]
			if got := u.funcName(v); (got == "coalesce") != tc.coalesce {
				t.Fatalf("value %s, coalesce %v", protojson.Format(v), tc.coalesce)
			}
			if !tc.coalesce && !proto.Equal(v, fieldExpr(3)) {
				t.Fatalf("value %s, want field 3", protojson.Format(v))
			}
		})
	}
}

// An uncorrelated scalar subquery in a project is a LEFT SINGLE join on
// true, whose added column an emit mapping keeps out of the project's
// output.
func TestDecorrelateScalarInProject(t *testing.T) {
	agg := `{"aggregate": {"common": {"direct": {}}, "input": ` + dRead("i", "k", "v") +
		`, "groupings": [], "measures": [{"measure": {"functionReference": 4, "outputType": ` + dI64 + `, "arguments": [{"value": ` + dRef(1, 0) + `}]}}]}}`
	proj := `{"project": {"common": {"direct": {}}, "input": ` + dRead("o", "k", "v") + `, "expressions": [{"subquery": {"scalar": {"input": ` + agg + `}}}]}}`
	_, rel, _ := decorrelated(t, dPlan(proj, "k", "v", "m"))
	p := rel.GetProject()
	j := p.GetInput().GetJoin()
	if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_SINGLE || j.GetExpression().GetLiteral().GetBoolean() != true {
		t.Fatalf("want a project over a LEFT SINGLE join on true, got\n%s", protojson.Format(rel))
	}
	if e := p.GetCommon().GetEmit(); e == nil || fmt.Sprint(e.GetOutputMapping()) != "[0 1 3]" {
		t.Fatalf("project emit %v, want [0 1 3]", p.GetCommon().GetEmit())
	}
	sameProtoExpr(t, "value", p.GetExpressions()[0], dRef(2, 0))
}

// A scalar subquery in a sort key (ORDER BY (SELECT ...)) is a LEFT
// SINGLE join of the sort's input, as in a project: the sort orders the
// joined rows by the added column, and an emit mapping keeps that column
// out of its output, so the plan above is untouched.
func TestDecorrelateScalarInSort(t *testing.T) {
	agg := `{"aggregate": {"common": {"direct": {}}, "input": ` + dFilter(dRead("i", "k", "v"), dCall(1, dBool, dRef(0, 0), dRef(0, 1))) +
		`, "groupings": [], "measures": [{"measure": {"functionReference": 4, "outputType": ` + dI64 + `, "arguments": [{"value": ` + dRef(1, 0) + `}]}}]}}`
	sort := `{"sort": {"common": {"direct": {}}, "input": ` + dRead("o", "k", "v") + `, "sorts": [{"expr": {"subquery": {"scalar": {"input": ` + agg +
		`}}}, "direction": "SORT_DIRECTION_ASC_NULLS_FIRST"}, {"expr": ` + dRef(0, 0) + `, "direction": "SORT_DIRECTION_ASC_NULLS_FIRST"}]}}`
	_, rel, widths := decorrelated(t, dPlan(sort, "k", "v"))
	s := rel.GetSort()
	j := s.GetInput().GetJoin()
	if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT || widths[s.GetInput()] != 4 {
		t.Fatalf("want a sort over a LEFT join of width 4, got\n%s", protojson.Format(rel))
	}
	if e := s.GetCommon().GetEmit(); e == nil || fmt.Sprint(e.GetOutputMapping()) != "[0 1]" {
		t.Fatalf("sort emit %v, want [0 1]", s.GetCommon().GetEmit())
	}
	sameProtoExpr(t, "first key", s.GetSorts()[0].GetExpr(), dRef(3, 0))
	sameProtoExpr(t, "second key", s.GetSorts()[1].GetExpr(), dRef(0, 0))
}

// anchor reuses a declaration of the standard function under its
// standard extension, and declares one when the plan's is under another
// URN.
func TestDecorrelateAnchor(t *testing.T) {
	p, _ := decode(t, dPlan(dRead("o", "k", "v"), "k", "v"))
	u := &unnester{p: p, anchors: map[string]uint32{}}
	u.declarations()
	if a := u.anchor("equal"); a != 1 {
		t.Fatalf("equal: anchor %d, want the declared 1", a)
	}
	p, _ = decode(t, strings.Replace(dPlan(dRead("o", "k", "v"), "k", "v"), `"urn": "extension:io.substrait:functions_boolean"`, `"urn": "extension:unknown:functions_boolean"`, 1))
	u = &unnester{p: p, anchors: map[string]uint32{}}
	u.declarations()
	n := len(p.GetExtensions())
	if a := u.anchor("not"); a == 2 || len(p.GetExtensions()) != n+1 || u.anchor("not") != a {
		t.Fatalf("not: anchor %d with %d declarations (was %d), want one new declaration", a, len(p.GetExtensions()), n)
	}
}

// Subqueries that cannot become joins are a PathError naming what and
// where, never a panic.
func TestDecorrelateRefusals(t *testing.T) {
	exists := func(sub string) string {
		return `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": ` + sub + `}}}`
	}
	cases := []struct{ name, plan, want string }{
		// A semi join's condition has no join to become (a post-join
		// filter's subquery is a filter's over the join: postJoinFilter).
		{"semi-join-condition", dPlan(`{"join": {"common": {"direct": {}}, "left": `+dRead("o", "k", "v")+`, "right": `+dRead("i", "k", "v")+
			`, "expression": `+exists(dFilter(dRead("s", "k"), dCall(1, dBool, dRef(0, 0), dRef(0, 1))))+`, "type": "JOIN_TYPE_LEFT_SEMI"}}`, "k", "v"),
			"unsupported expression: subquery in a JoinRel's expressions (unnested in filters, projects, sorts, aggregates and the conditions of inner, LEFT, RIGHT and FULL joins) at root.input.join"},
		// A right anti join keeps right rows by what the left holds:
		// not unnested (a RIGHT or FULL join is: decorrelate_fulljoin.go).
		{"outer-ref-in-right-anti-join", dPlan(dFilter(dRead("o", "k", "v"), exists(`{"join": {"common": {"direct": {}}, "left": `+dRead("i", "k", "v")+`, "right": `+dRead("j", "k", "v")+
			`, "expression": `+dCall(1, dBool, dRef(0, 0), dRef(0, 1))+`, "type": "JOIN_TYPE_RIGHT_ANTI"}}`)), "k", "v"),
			"unsupported expression: outer reference inside a JOIN_TYPE_RIGHT_ANTI join"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, widths := decode(t, tc.plan)
			err := Decorrelate(p, widths, nil)
			var pe *PathError
			if !errors.As(err, &pe) || pe.Kind != "expression" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want an unsupported expression with %q", err, tc.want)
			}
		})
	}
}
