package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// PostgreSQL canonicalizes a WHERE (and HAVING) condition after
// eval_const_expressions (canonicalize_qual -> find_duplicate_ors), and
// there, unlike in an expression, a constant NULL is as good as FALSE:
// within an AND of the qual a constant FALSE or NULL makes the AND
// FALSE and a TRUE drops out; within an OR a FALSE or NULL drops out and
// a TRUE makes the OR TRUE; an empty AND is TRUE, an empty OR FALSE. So
// the other operands of such an AND are never evaluated, not even once:
// NULL NOT IN (k, a stable cast, ...) is (NULL <> ALL (array)) AND NULL
// (nullInSplit), a FALSE qual with no row read and no array built
// (difftest seed 20261224: the stable cast raised on a row).
//
// reduceQual is cond, a WHERE condition, so reduced through its AND/OR
// tree. The operands it drops were simplified by PostgreSQL before, so a
// constant among them that raises is err (as pruneBool's).
func (l *lowerer) reduceQual(cond expr.Expression) (expr.Expression, error) {
	f, ok := cond.(*expr.ScalarFunction)
	if !ok {
		return cond, nil
	}
	name := baseName(f.Name())
	if name != "and" && name != "or" {
		return cond, nil
	}
	isAnd := name == "and"
	var kept []expr.Expression
	changed := false
	for i := 0; i < f.NArgs(); i++ {
		a, ok := f.Arg(i).(expr.Expression)
		if !ok {
			return cond, nil
		}
		r, err := l.reduceQual(a)
		if err != nil {
			return nil, err
		}
		changed = changed || r != a
		v, isBool := boolConst(r)
		null := isNullConst(r)
		switch {
		case isAnd && (null || isBool && !v), !isAnd && isBool && v:
			if err := raisingConstant(cond); err != nil {
				return nil, err
			}
			return expr.NewPrimitiveLiteral(!isAnd, false), nil
		case isAnd && isBool && v, !isAnd && (null || isBool && !v):
			changed = true
			continue
		}
		kept = append(kept, r)
	}
	switch {
	case len(kept) == 0:
		return expr.NewPrimitiveLiteral(isAnd, false), nil
	case len(kept) == 1:
		return kept[0], nil
	case !changed:
		return cond, nil
	}
	return l.call(urnBoolean, name, 0, kept...)
}

// plannedBeforeMove is the error PostgreSQL raises planning the
// subqueries of where, a WHERE (its top-level conjuncts) with a FALSE or
// NULL moved in from the HAVING (havingmove.go), which the lowering then
// folds away with them: subquery_planner plans the WHERE's subqueries
// (SS_process_sublinks) before it moves the HAVING conjunct in, so a
// constant in them that raises, or that their selectivity estimate
// raises, still raises (... WHERE (CASE WHEN 1 > ANY (SELECT ... WHERE
// 1e400 = NULL::real) ...) IS NULL GROUP BY 1 HAVING FALSE: difftest seed
// 20261242). A FALSE of the WHERE's own drops them unplanned
// (falsewhere.go, a path that does not come here); the moved conjuncts
// hold no subquery (havingForWhere).
func (l *lowerer) plannedBeforeMove(where *pg_query.Node, sc *scope) error {
	if l.ownWhere == nil {
		return nil
	}
	for _, c := range andArgs(where) {
		if !containsSubLink(c) {
			continue
		}
		cond, ok := l.qualCondition(c, sc) // sublinkfold.go
		if !ok {
			continue // its lowering in the WHERE reports the error
		}
		for _, s := range subqueryRels(cond) {
			if err := raiseConstants(s); err != nil {
				return err
			}
			if err := estimatedQuals(s, nil); err != nil {
				return err
			}
		}
	}
	return nil
}
