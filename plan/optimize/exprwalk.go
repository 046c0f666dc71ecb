package optimize

import (
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/stablerow/stablerow/internal/substraitfn"
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

// exprChildren walks e's child expressions (walkExpr), not the
// relations of its subqueries (substraitfn.ExprChildren, the one typed walk
// of an expression's children); false for a kind it does not know,
// which the caller walks by reflection.
func exprChildren(e *substraitpb.Expression, f func(*substraitpb.Expression) bool) bool {
	return substraitfn.ExprChildren(e, func(c *substraitpb.Expression) { walkExpr(c, f) }, func(*substraitpb.Rel) {})
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
