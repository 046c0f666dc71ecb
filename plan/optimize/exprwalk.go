package optimize

import (
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// The decorrelation and its helpers ask of nearly every relation whether
// its expressions hold a subquery, and rewrite the references in them.
// Walking an expression through protobuf reflection (Has, Get and Range
// per field) cost about a millisecond of a TPC-H Q2 plan. An expression
// is a closed set of messages, so it is walked here by their Go types;
// reflection is kept for the relations around expressions (a FilterRel's
// condition, a SortField's expression) and for an expression kind not
// listed below (lambdas), whose fields it walks as before.

// walkExpr is walkExprs of one expression: f on e, then, when f returns
// true, on every expression in e outside its subqueries' relations, in
// the order of the messages' fields, as the reflective walk visits them.
func walkExpr(e *substraitpb.Expression, f func(*substraitpb.Expression) bool) {
	if e == nil || !f(e) {
		return
	}
	if !exprChildren(e, f) {
		walkFields(e.ProtoReflect(), f)
	}
}

// exprChildren walks e's child expressions (walkExpr); false for a kind
// it does not know, which the caller walks by reflection.
func exprChildren(e *substraitpb.Expression, f func(*substraitpb.Expression) bool) bool {
	switch x := e.GetRexType().(type) {
	case nil, *substraitpb.Expression_Literal_, *substraitpb.Expression_DynamicParameter, *substraitpb.Expression_Enum_:
		// No expression inside (a literal's nested values are literals).
	case *substraitpb.Expression_Selection:
		if r, ok := x.Selection.GetRootType().(*substraitpb.Expression_FieldReference_Expression); ok {
			walkExpr(r.Expression, f)
		}
	case *substraitpb.Expression_ScalarFunction_:
		walkArgs(x.ScalarFunction.GetArguments(), f)
		walkList(x.ScalarFunction.GetArgs(), f)
	case *substraitpb.Expression_WindowFunction_:
		w := x.WindowFunction
		walkArgs(w.GetArguments(), f)
		walkSorts(w.GetSorts(), f)
		walkList(w.GetPartitions(), f)
		walkList(w.GetArgs(), f)
	case *substraitpb.Expression_IfThen_:
		for _, c := range x.IfThen.GetIfs() {
			walkExpr(c.GetIf(), f)
			walkExpr(c.GetThen(), f)
		}
		walkExpr(x.IfThen.GetElse(), f)
	case *substraitpb.Expression_SwitchExpression_:
		walkExpr(x.SwitchExpression.GetMatch(), f)
		for _, c := range x.SwitchExpression.GetIfs() {
			walkExpr(c.GetThen(), f)
		}
		walkExpr(x.SwitchExpression.GetElse(), f)
	case *substraitpb.Expression_SingularOrList_:
		walkExpr(x.SingularOrList.GetValue(), f)
		walkList(x.SingularOrList.GetOptions(), f)
	case *substraitpb.Expression_MultiOrList_:
		walkList(x.MultiOrList.GetValue(), f)
		for _, r := range x.MultiOrList.GetOptions() {
			walkList(r.GetFields(), f)
		}
	case *substraitpb.Expression_Cast_:
		walkExpr(x.Cast.GetInput(), f)
	case *substraitpb.Expression_Nested_:
		switch n := x.Nested.GetNestedType().(type) {
		case *substraitpb.Expression_Nested_Struct_:
			walkList(n.Struct.GetFields(), f)
		case *substraitpb.Expression_Nested_List_:
			walkList(n.List.GetValues(), f)
		case *substraitpb.Expression_Nested_Map_:
			for _, kv := range n.Map.GetKeyValues() {
				walkExpr(kv.GetKey(), f)
				walkExpr(kv.GetValue(), f)
			}
		default:
			return false
		}
	case *substraitpb.Expression_Subquery_:
		// The relations are not walked; the expressions beside them are.
		switch s := x.Subquery.GetSubqueryType().(type) {
		case *substraitpb.Expression_Subquery_Scalar_, *substraitpb.Expression_Subquery_SetPredicate_:
		case *substraitpb.Expression_Subquery_InPredicate_:
			walkList(s.InPredicate.GetNeedles(), f)
		case *substraitpb.Expression_Subquery_SetComparison_:
			walkExpr(s.SetComparison.GetLeft(), f)
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// relExprs walks the expressions of the relation messages decorrelation
// asks most about (walkExprs); false for any other message, which the
// caller walks by reflection. A relation's common part and extensions
// hold no expression.
func relExprs(m any, f func(*substraitpb.Expression) bool) bool {
	switch r := m.(type) {
	case *substraitpb.FilterRel:
		walkExpr(r.GetCondition(), f)
	case *substraitpb.ProjectRel:
		walkList(r.GetExpressions(), f)
	case *substraitpb.SortRel:
		walkSorts(r.GetSorts(), f)
	case *substraitpb.JoinRel:
		walkExpr(r.GetExpression(), f)
		walkExpr(r.GetPostJoinFilter(), f)
	case *substraitpb.AggregateRel:
		for _, g := range r.GetGroupings() {
			walkList(g.GetGroupingExpressions(), f)
		}
		for _, m := range r.GetMeasures() {
			a := m.GetMeasure()
			walkArgs(a.GetArguments(), f)
			walkSorts(a.GetSorts(), f)
			walkList(a.GetArgs(), f)
			walkExpr(m.GetFilter(), f)
		}
		walkList(r.GetGroupingExpressions(), f)
	default:
		return false
	}
	return true
}

func walkSorts(ss []*substraitpb.SortField, f func(*substraitpb.Expression) bool) {
	for _, s := range ss {
		walkExpr(s.GetExpr(), f)
	}
}

func walkList(es []*substraitpb.Expression, f func(*substraitpb.Expression) bool) {
	for _, e := range es {
		walkExpr(e, f)
	}
}

func walkArgs(as []*substraitpb.FunctionArgument, f func(*substraitpb.Expression) bool) {
	for _, a := range as {
		walkExpr(a.GetValue(), f)
	}
}
