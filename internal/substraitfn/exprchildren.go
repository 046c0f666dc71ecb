package substraitfn

import "github.com/substrait-io/substrait-protobuf/go/substraitpb"

// ExprChildren is the one typed walk of an expression's children: expr
// on each expression directly inside e and rel on the relation of each
// of its subqueries, in the order of e's fields (the order protobuf
// reflection reads them). It reports false for a kind it does not know
// (a lambda, a nested or subquery kind newer than this code), which the
// caller then walks by reflection. The optimizer's expression walk
// (plan/optimize/exprwalk.go) and the ingest's relation walk
// (plan/ingest/relwalk.go) are built on it.
func ExprChildren(e *substraitpb.Expression, expr func(*substraitpb.Expression), rel func(*substraitpb.Rel)) bool {
	switch x := e.GetRexType().(type) {
	case nil, *substraitpb.Expression_Literal_, *substraitpb.Expression_DynamicParameter, *substraitpb.Expression_Enum_:
		// No expression inside (a literal's nested values are literals).
	case *substraitpb.Expression_Selection:
		if r, ok := x.Selection.GetRootType().(*substraitpb.Expression_FieldReference_Expression); ok {
			expr(r.Expression)
		}
	case *substraitpb.Expression_ScalarFunction_:
		eachArg(x.ScalarFunction.GetArguments(), expr)
		eachExpr(x.ScalarFunction.GetArgs(), expr) //nolint:staticcheck // producers still send it
	case *substraitpb.Expression_WindowFunction_:
		w := x.WindowFunction
		eachArg(w.GetArguments(), expr)
		for _, s := range w.GetSorts() {
			expr(s.GetExpr())
		}
		eachExpr(w.GetPartitions(), expr)
		eachExpr(w.GetArgs(), expr) //nolint:staticcheck
	case *substraitpb.Expression_IfThen_:
		for _, c := range x.IfThen.GetIfs() {
			expr(c.GetIf())
			expr(c.GetThen())
		}
		expr(x.IfThen.GetElse())
	case *substraitpb.Expression_SwitchExpression_:
		expr(x.SwitchExpression.GetMatch())
		for _, c := range x.SwitchExpression.GetIfs() {
			expr(c.GetThen())
		}
		expr(x.SwitchExpression.GetElse())
	case *substraitpb.Expression_SingularOrList_:
		expr(x.SingularOrList.GetValue())
		eachExpr(x.SingularOrList.GetOptions(), expr)
	case *substraitpb.Expression_MultiOrList_:
		eachExpr(x.MultiOrList.GetValue(), expr)
		for _, r := range x.MultiOrList.GetOptions() {
			eachExpr(r.GetFields(), expr)
		}
	case *substraitpb.Expression_Cast_:
		expr(x.Cast.GetInput())
	case *substraitpb.Expression_Nested_:
		switch n := x.Nested.GetNestedType().(type) {
		case *substraitpb.Expression_Nested_Struct_:
			eachExpr(n.Struct.GetFields(), expr)
		case *substraitpb.Expression_Nested_List_:
			eachExpr(n.List.GetValues(), expr)
		case *substraitpb.Expression_Nested_Map_:
			for _, kv := range n.Map.GetKeyValues() {
				expr(kv.GetKey())
				expr(kv.GetValue())
			}
		default:
			return false
		}
	case *substraitpb.Expression_Subquery_:
		switch s := x.Subquery.GetSubqueryType().(type) {
		case *substraitpb.Expression_Subquery_Scalar_:
			rel(s.Scalar.GetInput())
		case *substraitpb.Expression_Subquery_InPredicate_:
			eachExpr(s.InPredicate.GetNeedles(), expr)
			rel(s.InPredicate.GetHaystack())
		case *substraitpb.Expression_Subquery_SetPredicate_:
			rel(s.SetPredicate.GetTuples())
		case *substraitpb.Expression_Subquery_SetComparison_:
			expr(s.SetComparison.GetLeft())
			rel(s.SetComparison.GetRight())
		default:
			return false
		}
	default:
		return false
	}
	return true
}

func eachExpr(es []*substraitpb.Expression, expr func(*substraitpb.Expression)) {
	for _, e := range es {
		expr(e)
	}
}

func eachArg(as []*substraitpb.FunctionArgument, expr func(*substraitpb.Expression)) {
	for _, a := range as {
		expr(a.GetValue())
	}
}
