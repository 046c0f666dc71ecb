package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// A comparison of a row constructor with another, (a, b) < (c, d), or
// with a subquery of as many columns, (a, b) < (SELECT x, y ...): as
// PostgreSQL's make_row_comparison_op expands it, = is the AND of the
// column pairs' equalities and <> the OR of their inequalities; <, <=,
// > and >= compare lexicographically (its RowCompareExpr, ExecRowCompare:
// the first pair not equal decides, NULL if either is NULL, and all
// equal decides by the operator's equality). Substrait has no row
// comparison, so the front end writes the same three-valued answer as
//
//	x1 <' y1 OR (x1 = y1 AND (x2 <' y2 OR (x2 = y2 AND ... xn < yn)))
//
// (<' the strict operator of the direction): an earlier pair that is
// unequal gives true or false whatever later pairs are, one with a NULL
// gives NULL (NULL OR (NULL AND x) is NULL or, x false, false OR NULL).
// The subquery (ROWCOMPARE_SUBLINK, transformAExprOp) is one scalar
// subquery per column over the same lowered relation: each raises
// PostgreSQL's error when it returns more than one row, and is NULL
// when it returns none, as the row's columns are.

// rowComparison lowers the comparison a (operator op) whose left operand
// is a row constructor.
func (l *lowerer) rowComparison(a *pg_query.A_Expr, op string, s *scope) (value, error) {
	if _, ok := comparisons[op]; !ok {
		return value{}, fmt.Errorf("%w: operator %s on rows%s", ErrUnsupported, op, l.src.at(a.Location))
	}
	xs, err := l.exprs(s, a.Lexpr.GetRowExpr().Args...)
	if err != nil {
		return value{}, err
	}
	var ys []value
	switch {
	case a.Rexpr.GetRowExpr() != nil:
		if ys, err = l.exprs(s, a.Rexpr.GetRowExpr().Args...); err == nil && len(ys) != len(xs) {
			err = fmt.Errorf("%w: unequal number of entries in row expressions%s", ErrSyntax, l.src.at(a.Location))
		}
	case a.Rexpr.GetSubLink().GetSubLinkType() == pg_query.SubLinkType_EXPR_SUBLINK:
		ys, err = l.rowSubquery(a.Rexpr.GetSubLink(), len(xs), s)
	default:
		err = fmt.Errorf("%w: operator does not exist: record %s a non-row%s", ErrType, op, l.src.at(a.Location))
	}
	if err != nil {
		return value{}, err
	}
	e, err := l.rowCompare(op, xs, ys, a.Location)
	return value{e: e, loc: a.Location}, err
}

// rowSubquery lowers the subquery sl, which must have n columns, to one
// scalar subquery per column.
func (l *lowerer) rowSubquery(sl *pg_query.SubLink, n int, sc *scope) ([]value, error) {
	rel, names, err := l.rowSubqueryRel(sl, n, nil, sc)
	if err != nil {
		return nil, err
	}
	rt := rel.RecordType()
	out := make([]value, n)
	for i := range out {
		ref, err := expr.NewRootFieldRef(expr.NewStructFieldRef(int32(i)), &rt)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		col, err := l.b.ProjectRemap(rel, []int32{int32(n)}, ref)
		if err != nil {
			return nil, fmt.Errorf("%w: row subquery: %w", ErrInvalid, err)
		}
		e, err := l.b.ScalarSubquery(col)
		if err != nil {
			return nil, fmt.Errorf("%w: row subquery: %w", ErrInvalid, err)
		}
		out[i] = value{e: nullable(e), loc: sl.Location, name: names[i]}
	}
	return out, nil
}

// rowSubqueryRel lowers the subquery sl over sc (its columns asked for
// the kinds want, nil: its own), which must have n columns.
func (l *lowerer) rowSubqueryRel(sl *pg_query.SubLink, n int, want []kind, sc *scope) (plan.Rel, []string, error) {
	sub := sl.Subselect.GetSelectStmt()
	if sub == nil {
		return nil, nil, fmt.Errorf("%w: subquery form%s", ErrUnsupported, l.src.at(sl.Location))
	}
	saved := l.outer
	l.outer = sc
	l.corrNext = correlatable(sub)
	rel, names, err := l.selectStmt(sub, want)
	l.outer, l.corrNext = saved, false
	switch {
	case err != nil:
		return nil, nil, err
	case len(names) > n:
		return nil, nil, fmt.Errorf("%w: subquery has too many columns%s", ErrInvalid, l.src.at(sl.Location))
	case len(names) < n:
		return nil, nil, fmt.Errorf("%w: subquery has too few columns%s", ErrInvalid, l.src.at(sl.Location))
	}
	return rel, names, nil
}

// rowCompare is the row comparison xs op ys (as many of each) written
// with column comparisons, as above.
func (l *lowerer) rowCompare(op string, xs, ys []value, loc int32) (expr.Expression, error) {
	cmp := func(fn string, i int) (expr.Expression, error) {
		args, _, err := l.unify(xs[i], ys[i])
		if err != nil {
			return nil, err
		}
		return l.call(urnComparison, fn, loc, args...)
	}
	// unfolded is l.call without the folding.
	unfolded := func(urn, name string, args ...expr.Expression) (expr.Expression, error) {
		f, err := substraitfn.Scalar(l.b.GetExprBuilder().Reg, urn, name, args...)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w%s", ErrType, name, err, l.src.at(loc))
		}
		return f, nil
	}
	fn := comparisons[op]
	if fn == "equal" || fn == "not_equal" {
		es := make([]expr.Expression, len(xs))
		for i := range xs {
			var err error
			if es[i], err = cmp(fn, i); err != nil {
				return nil, err
			}
		}
		if len(es) == 1 {
			return es[0], nil
		}
		return l.call(urnBoolean, map[string]string{"equal": "and", "not_equal": "or"}[fn], loc, es...)
	}
	if len(xs) == 1 {
		return cmp(fn, 0) // make_row_comparison_op: one column is its operator
	}
	// PostgreSQL's RowCompareExpr is never folded while planning
	// (eval_const_expressions simplifies its arguments only), so over
	// constants it is no constant either: a FALSE it would give does not
	// end the folding of an AND before a later conjunct that raises
	// (seed 781 case 106537). Its calls are built unfolded.
	pair := func(fn string, i int) (expr.Expression, error) {
		args, _, err := l.unify(xs[i], ys[i])
		if err != nil {
			return nil, err
		}
		return unfolded(urnComparison, fn, args...)
	}
	strict := map[string]string{"lt": "lt", "lte": "lt", "gt": "gt", "gte": "gt"}[fn]
	acc, err := pair(fn, len(xs)-1)
	for i := len(xs) - 2; i >= 0 && err == nil; i-- {
		var s, eq, both expr.Expression
		if s, err = pair(strict, i); err != nil {
			break
		}
		if eq, err = pair("equal", i); err != nil {
			break
		}
		if both, err = unfolded(urnBoolean, "and", eq, acc); err != nil {
			break
		}
		acc, err = unfolded(urnBoolean, "or", s, both)
	}
	return acc, err
}

// A row op ANY or ALL (SELECT x, y ...) other than IN and NOT IN, (a, b)
// < ANY (...), compares the row with each of the subquery's rows as above
// (make_row_comparison_op, per row: ExecScanSubPlan's ANY/ALL), OR-ed
// for ANY and AND-ed for ALL in three-valued logic: false over no row for
// ANY, true for ALL. That is true = ANY (SELECT <the row comparison> ...)
// and true = ALL (...): the subquery's rows projected to the comparison,
// the operands read from inside as outer references (one level further
// out than they were), which the optimizer unnests like any correlated
// set comparison (a semi or anti join, or a mark join as a value).

// rowSetComparison lowers the op ANY/ALL subquery sl whose operand is a
// row constructor over sc.
func (l *lowerer) rowSetComparison(sl *pg_query.SubLink, sc *scope) (expr.Expression, error) {
	red, op, err := l.setComparison(sl)
	if err != nil {
		return nil, err
	}
	xs, err := l.exprs(sc, sl.Testexpr.GetRowExpr().Args...)
	if err != nil {
		return nil, err
	}
	for i := range xs {
		if xs[i].e == nil {
			continue // an untyped literal: nothing to read
		}
		if hasSubquery(xs[i].e) {
			return nil, fmt.Errorf("%w: a subquery in a row compared with ANY or ALL (subquery)%s", ErrUnsupported, l.src.at(sl.Location))
		}
		xs[i].e = outerShift(xs[i].e)
	}
	rel, _, err := l.rowSubqueryRel(sl, len(xs), operandKinds(xs), sc)
	if err != nil {
		return nil, err
	}
	rt := rel.RecordType()
	ys := make([]value, len(xs))
	for i := range ys {
		if ys[i].e, err = expr.NewRootFieldRef(expr.NewStructFieldRef(int32(i)), &rt); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		ys[i].loc = sl.Location
	}
	cmpOp := map[plan.SetComparisonComparisonOp]string{
		plan.SetComparisonComparisonOpEq: "=", plan.SetComparisonComparisonOpNe: "<>",
		plan.SetComparisonComparisonOpLt: "<", plan.SetComparisonComparisonOpGt: ">",
		plan.SetComparisonComparisonOpLe: "<=", plan.SetComparisonComparisonOpGe: ">=",
	}[op]
	c, err := l.rowCompare(cmpOp, xs, ys, sl.Location)
	if err != nil {
		return nil, err
	}
	rel, err = l.b.ProjectRemap(rel, []int32{int32(len(xs))}, c)
	if err != nil {
		return nil, fmt.Errorf("%w: row %s subquery: %w", ErrInvalid, red, err)
	}
	e, err := l.b.SetComparisonSubquery(expr.NewPrimitiveLiteral(true, false), rel, red, plan.SetComparisonComparisonOpEq)
	if err != nil {
		return nil, fmt.Errorf("%w: row %s subquery: %w", ErrInvalid, red, err)
	}
	return e, nil
}

// outerShift is e read one query level further in: a reference to the
// input row an outer reference one level out, an outer reference one
// more level out.
func outerShift(e expr.Expression) expr.Expression {
	if f, ok := e.(*expr.FieldReference); ok {
		c := *f
		if o, ok := f.Root.(expr.OuterReference); ok {
			c.Root = o + 1
		} else {
			c.Root = expr.OuterReference(1)
		}
		return &c
	}
	return e.Visit(outerShift)
}

// hasSubquery reports a subquery expression in e (whose relations'
// outer references outerShift would not move).
func hasSubquery(e expr.Expression) bool {
	found := false
	var visit expr.VisitFunc
	visit = func(x expr.Expression) expr.Expression {
		if _, ok := x.(interface{ GetSubqueryType() string }); ok {
			found = true
			return x
		}
		return x.Visit(visit)
	}
	visit(e)
	return found
}
