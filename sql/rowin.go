package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// A row IN a subquery, (a, b) IN (SELECT x, y ...), and its negation
// (a, b) NOT IN, written = ANY and <> ALL too, compare the row with each
// of the subquery's rows column by column, as PostgreSQL's row comparison
// does (make_row_comparison_op): a = x AND b = y, NULL where no column
// pair is false and one is NULL. Substrait's IN predicate has one needle
// per column; the optimizer joins on every column's comparison
// (optimize.Decorrelate: the semi join's conjunction for IN, the anti
// join's NULL-or per column for NOT IN, a mark join's as a value), so the
// three-valued answer is the row comparison's. A row with another
// operator (< ANY) orders rows lexicographically: rowcmp.go.

// setOperands lowers the operand of an IN or op ANY/ALL subquery sl: its
// value, or each column of a row.
func (l *lowerer) setOperands(sl *pg_query.SubLink, k setKind, sc *scope) ([]value, error) {
	xs := *sc
	xs.noAggs = "in WHERE"
	r := sl.Testexpr.GetRowExpr()
	if r == nil {
		x, err := l.expr(sl.Testexpr, &xs)
		return []value{x}, err
	}
	if k == setCompare {
		return nil, fmt.Errorf("%w: row comparison with a subquery%s", ErrUnsupported, l.src.at(sl.Location))
	}
	var out []value
	for _, a := range r.Args {
		v, err := l.expr(a, &xs)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// operandKinds are the kinds the subquery's columns are asked for: the
// operands' when all are typed (an untyped literal takes the column's).
func operandKinds(xs []value) []kind {
	var want []kind
	for _, x := range xs {
		if x.how != typed {
			return nil
		}
		want = append(want, x.kind())
	}
	return want
}

// haystack meets the operands xs with the n columns of the subquery rel
// (loc: the subquery's position): the needles, and the haystack, a
// projection of the columns cast to the common types where they differ.
func (l *lowerer) haystack(xs []value, rel plan.Rel, n int, loc int32) ([]expr.Expression, plan.Rel, error) {
	switch {
	case n > len(xs):
		return nil, nil, fmt.Errorf("%w: subquery has too many columns%s", ErrInvalid, l.src.at(loc))
	case n < len(xs):
		return nil, nil, fmt.Errorf("%w: subquery has too few columns%s", ErrInvalid, l.src.at(loc))
	}
	rt := rel.RecordType()
	needles := make([]expr.Expression, n)
	cols := make([]expr.Expression, n)
	cast := false
	for i, x := range xs {
		ye, err := expr.NewRootFieldRef(expr.NewStructFieldRef(int32(i)), &rt)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		args, _, err := l.unify(x, value{e: ye, loc: loc})
		if err != nil {
			return nil, nil, err
		}
		needles[i], cols[i] = args[0], args[1]
		cast = cast || args[1] != expr.Expression(ye)
	}
	if !cast {
		return needles, rel, nil
	}
	// The subquery's columns meet the operands' types: a projection of
	// the casts is the haystack.
	remap := make([]int32, n)
	for i := range remap {
		remap[i] = int32(n + i)
	}
	rel, err := l.b.ProjectRemap(rel, remap, cols...)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: IN subquery: %w", ErrInvalid, err)
	}
	return needles, rel, nil
}
