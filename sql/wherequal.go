package sql

import (
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
