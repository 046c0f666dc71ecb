package sql

import (
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// subqueryRels are the relations of the subquery expressions in e
// (EXISTS, IN; setExpr), outermost first: the walks over a lowered plan
// (raiseConstants, estimatedQuals) go into them, since PostgreSQL plans,
// and estimates, a subquery's relations with the statement.
func subqueryRels(e expr.Expression) []plan.Rel {
	var out []plan.Rel
	var walk func(e expr.Expression)
	walk = func(e expr.Expression) {
		switch x := e.(type) {
		case *plan.SetPredicateSubquery:
			out = append(out, x.Tuples)
		case *plan.InPredicateSubquery:
			out = append(out, x.Haystack)
		case *plan.ScalarSubquery:
			out = append(out, x.Input)
		case *plan.SetComparisonSubquery:
			out = append(out, x.Right)
		}
		e.Visit(func(c expr.Expression) expr.Expression {
			walk(c)
			return c
		})
	}
	if e != nil {
		walk(e)
	}
	return out
}

// relSubqueries are the relations of the subquery expressions in r's own
// expressions (not its inputs').
func relSubqueries(r plan.Rel) []plan.Rel {
	var out []plan.Rel
	_, _ = r.CopyWithExpressionRewrite(func(e expr.Expression) (expr.Expression, error) {
		out = append(out, subqueryRels(e)...)
		return e, nil
	}, r.GetInputs()...)
	return out
}
