package sql

import (
	"errors"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// A WHERE that a constant FALSE conjunct folds away still has its
// conjuncts before that one simplified: PostgreSQL's simplify_and_arguments
// runs eval_const_expressions over the AND's operands left to right and
// stops at the first constant FALSE, and only then plans the subqueries
// left in the WHERE (SS_process_sublinks), which a FALSE WHERE never does.
// So in a conjunct that holds a subquery, the parts outside the subquery
// (the left operand of x [NOT] IN (SELECT ...), the other operand of a
// comparison with a scalar subquery) are folded, and a constant in them
// that raises raises while planning, with no row read:
// ((1e400 >= 1::float8) NOT IN (SELECT TRUE FROM t)) AND FALSE raises
// 22003, FALSE AND ((1e400 >= 1::float8) NOT IN (...)) does not, and
// x NOT IN (SELECT ... 1e400 <= d ...) AND FALSE does not either (the
// subquery is never planned). difftest seed 1 case 12004.

// foldedBeforeFalse is the error PostgreSQL raises folding the conjuncts
// of where that precede its first constant FALSE conjunct (all of them
// when there is none): that of a raising constant outside the
// subqueries of a conjunct that holds one. The conjuncts without a
// subquery are folded by the filter's own lowering (pruneBool), and the
// subqueries PostgreSQL turned into joins are planned as ever
// (whereSubqueries); pulled lists those.
func (l *lowerer) foldedBeforeFalse(where *pg_query.Node, sc *scope, pulled func(*pg_query.Node) bool) error {
	for _, c := range andArgs(where) {
		if !containsSubLink(c) {
			if l.constantBool(c, sc, false) {
				return nil
			}
			continue
		}
		if pulled(c) {
			continue
		}
		if err := l.outsideSubqueries(c, sc); err != nil {
			return err
		}
	}
	return nil
}

// constantBool: c, which holds no subquery, lowers to the boolean
// constant want (not NULL).
func (l *lowerer) constantBool(c *pg_query.Node, sc *scope, want bool) bool {
	cond, ok := l.qualCondition(c, sc)
	if !ok {
		return false
	}
	b, ok := boolConst(cond)
	return ok && b == want
}

// qualCondition is the WHERE conjunct c lowered as a condition; ok is
// false when it does not lower (the filter that lowers it again reports
// the error).
func (l *lowerer) qualCondition(c *pg_query.Node, sc *scope) (expr.Expression, bool) {
	ws := *sc
	ws.noAggs = "in WHERE"
	v, err := l.expr(c, &ws)
	if err != nil {
		return nil, false
	}
	cond, err := l.coerce(v, kindBool)
	return cond, err == nil
}

// outsideSubqueries is the error of the first raising constant in n
// outside its subqueries: each operand holding no subquery is lowered,
// and raises as the lowering or the evaluation of its constants does
// (raisingConstant); a subquery's own body is not looked into. AND and OR
// operands are taken left to right up to the constant that decides them,
// as simplify_and_arguments and simplify_or_arguments do.
func (l *lowerer) outsideSubqueries(n *pg_query.Node, sc *scope) error {
	if n == nil {
		return nil
	}
	if !containsSubLink(n) {
		ws := *sc
		ws.noAggs = "in WHERE"
		v, err := l.expr(n, &ws)
		switch {
		case err != nil && (errors.Is(err, sqlvalue.ErrOutOfRange) || errors.Is(err, sqlvalue.ErrDivisionByZero)):
			return err
		case err != nil || v.e == nil:
			// Not a constant's evaluation (the whole statement's
			// lowering reports a real error), or an untyped constant
			// with nothing evaluated yet.
			return nil
		}
		return raisingConstant(v.e)
	}
	switch x := n.Node.(type) {
	case *pg_query.Node_SubLink:
		return l.outsideSubqueries(x.SubLink.Testexpr, sc)
	case *pg_query.Node_BoolExpr:
		decide := x.BoolExpr.Boolop == pg_query.BoolExprType_OR_EXPR
		for _, a := range x.BoolExpr.Args {
			if x.BoolExpr.Boolop != pg_query.BoolExprType_NOT_EXPR && !containsSubLink(a) && l.constantBool(a, sc, decide) {
				return nil
			}
			if err := l.outsideSubqueries(a, sc); err != nil {
				return err
			}
		}
	case *pg_query.Node_AExpr:
		if err := l.outsideSubqueries(x.AExpr.Lexpr, sc); err != nil {
			return err
		}
		return l.outsideSubqueries(x.AExpr.Rexpr, sc)
	case *pg_query.Node_NullTest:
		return l.outsideSubqueries(x.NullTest.Arg, sc)
	case *pg_query.Node_TypeCast:
		return l.outsideSubqueries(x.TypeCast.Arg, sc)
	}
	return nil
}
