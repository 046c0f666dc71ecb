package optimize

import (
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// A filter over an outer join is taken apart before the regions are
// ordered, as PostgreSQL's planner does it for a WHERE over outer joins:
//
//   - reduce_outer_joins: a conjunct that cannot be true when some column
//     of a nullable side is NULL (it is strict in that column:
//     find_nonnullable_rels) removes every row the join NULL-extended on
//     that side, so the join loses that side's outer part: LEFT and RIGHT
//     become INNER, FULL becomes LEFT, RIGHT or INNER;
//   - distribute_qual_to_rels: a conjunct that reads only the preserved
//     side of a LEFT or RIGHT join filters that side below the join (the
//     join keeps every preserved row it is given, so filtering before or
//     after it keeps the same ones). A conjunct that reads the nullable
//     side stays above the join (it sees the NULL-extended rows).
//
// The inner joins below the outer ones are then a region with their
// filters (TPC-DS Q72: the WHERE over two LEFT JOINs restricts the eight
// inner joins below them), ordered by the region machinery (joins.go).

// outer is the filter f moved through the outer join under it (above):
// the join reduced, or the conjuncts over its preserved side pushed into
// that side. ok is false when neither applies (f is then planned as it is).
func (o *optimizer) outer(f *splan.FilterRel) (out splan.Rel, ok bool, err error) {
	j, isJoin := f.Input().(*splan.JoinRel)
	if !isJoin || j.OutputMapping() != nil || (j.PostJoinFilter() != nil && !isTrue(j.PostJoinFilter())) {
		return nil, false, nil
	}
	t := j.Type()
	// An expand (expand.go) is a barrier to the join-order pass, so its
	// INNER join's conjuncts over the left input are pushed here, as a
	// LEFT join's (distribute_qual_to_rels).
	expandInner := t == splan.JoinTypeInner && substraitfn.IsLateralJoin(j.GetAdvancedExtension())
	if t != splan.JoinTypeLeft && t != splan.JoinTypeRight && t != splan.JoinTypeOuter && !expandInner {
		return nil, false, nil
	}
	nl := width(j.Left())
	if nl == 0 {
		return nil, false, nil // no left columns: nothing to tell the sides by
	}
	cs := conjuncts(f.Condition())
	if r := reduced(t, cs, nl); r != t {
		nj, err := o.b.Join(j.Left(), j.Right(), j.Expr(), r)
		if err != nil {
			return nil, false, wrapInternal(err)
		}
		keepExpandMark(nj, j)
		out, err := o.b.Filter(nj, f.Condition())
		return out, true, wrapInternal(err)
	}
	if t == splan.JoinTypeOuter {
		return nil, false, nil // both sides nullable: nothing to push
	}
	// preserved: the side whose rows the join keeps, 0 left, 1 right.
	preserved := 0
	if t == splan.JoinTypeRight {
		preserved = 1
	}
	var push, stay []expr.Expression
	for _, c := range cs {
		if side(c, nl) == preserved {
			push = append(push, c)
		} else {
			stay = append(stay, c)
		}
	}
	if len(push) == 0 {
		return nil, false, nil
	}
	l, r := j.Left(), j.Right()
	// The nullable side's columns the join equates with a preserved
	// column the pushed conjuncts fix to a constant are that constant
	// too, for every row that can match (transferred).
	if derived := transferred(push, j.Expr(), nl, preserved); len(derived) > 0 {
		if preserved == 0 {
			r, err = o.filter(r, derived)
		} else {
			l, err = o.filter(l, derived)
		}
		if err != nil {
			return nil, false, err
		}
	}
	if preserved == 0 {
		l, err = o.filter(l, push)
	} else {
		for i, c := range push {
			push[i] = remap(c, func(i int) int { return i - nl })
		}
		r, err = o.filter(r, push)
	}
	if err != nil {
		return nil, false, err
	}
	nj, err := o.b.Join(l, r, j.Expr(), t)
	if err != nil {
		return nil, false, wrapInternal(err)
	}
	keepExpandMark(nj, j)
	if len(stay) == 0 {
		return nj, true, nil
	}
	cond, err := o.and(stay)
	if err != nil {
		return nil, false, err
	}
	out, err = o.b.Filter(nj, cond)
	return out, true, wrapInternal(err)
}

// filterThrough is the optimized r filtered by es, the filter moved
// through r when r is an outer join (outer) or a relation sink moves
// filters through: the conjuncts a region's
// graph places on a node that is an outer join (a WHERE over inner joins
// over a LEFT JOIN) reach its preserved side, or reduce it, as a filter
// written directly over it does.
func (o *optimizer) filterThrough(r splan.Rel, es []expr.Expression) (splan.Rel, error) {
	fr, err := o.filter(r, es)
	if err != nil || len(es) == 0 {
		return fr, err
	}
	f, ok := fr.(*splan.FilterRel)
	if !ok || f.OutputMapping() != nil {
		return fr, nil
	}
	out, moved, err := o.outer(f)
	if err != nil {
		return nil, err
	}
	if !moved {
		// Or through a project, an aggregate, a UNION ALL or a sort
		// (sink.go), as a filter written over one is.
		if out, moved, err = o.sink(f); err != nil || !moved {
			return fr, err
		}
	}
	return o.rewrite(out)
}

// side is 0 when c reads columns below nl only, 1 when it reads columns
// from nl on only, and -1 otherwise: it reads both, none, or something no
// side has (an outer query's column, a subquery), and must stay above.
func side(c expr.Expression, nl int) int {
	left, right := false, false
	if !columns(c, func(i int) {
		if i < nl {
			left = true
		} else {
			right = true
		}
	}) || left == right {
		return -1
	}
	if left {
		return 0
	}
	return 1
}

// reduced is the join type t becomes under a filter of the conjuncts cs
// (PostgreSQL's reduce_outer_joins): a side a conjunct is strict in is
// no longer nullable.
func reduced(t splan.JoinType, cs []expr.Expression, nl int) splan.JoinType {
	left, right := false, false
	for _, c := range cs {
		sides := nonnullable(c, true, nl)
		left, right = left || sides[0], right || sides[1]
	}
	switch {
	case t == splan.JoinTypeLeft && right, t == splan.JoinTypeRight && left,
		t == splan.JoinTypeOuter && left && right:
		return splan.JoinTypeInner
	case t == splan.JoinTypeOuter && left:
		return splan.JoinTypeLeft // the right side's unmatched rows are gone
	case t == splan.JoinTypeOuter && right:
		return splan.JoinTypeRight
	}
	return t
}

// strict is the functions whose result is NULL whenever an argument is
// NULL (PostgreSQL's strict operators). Not here: and, or and not (their
// own rules in nonnullable), is_null, is_not_null, is_distinct_from,
// coalesce and concat (PostgreSQL's concat skips NULLs), which can be
// true or not NULL for a NULL argument.
var strict = map[string]bool{
	"equal": true, "not_equal": true, "lt": true, "lte": true, "gt": true, "gte": true,
	"add": true, "subtract": true, "multiply": true, "divide": true, "modulus": true,
	"negate": true, "abs": true, "like": true, "ilike": true, "starts_with": true,
	"substring": true, "upper": true, "lower": true, "trim": true, "extract": true,
}

// nonnullable is the sides of a join whose left input is nl columns wide
// (0 left, 1 right) for which e cannot be true when all of that side's
// columns are NULL, as they are in a row the join NULL-extended (top: e
// is a conjunct, where NULL and false both reject the row), or (below the
// top) cannot be non-NULL: PostgreSQL's find_nonnullable_rels_walker,
// whose relations are the sides here (an OR of c.v < 3 and c.k = 1
// rejects the rows with no c). Anything it does not know has none,
// which keeps the join as it is.
func nonnullable(e expr.Expression, top bool, nl int) map[int]bool {
	switch e := e.(type) {
	case *expr.FieldReference:
		out := map[int]bool{}
		if !columns(e, func(c int) { out[min(c/nl, 1)] = true }) {
			return nil
		}
		return out
	case *expr.Cast:
		return nonnullable(e.Input, false, nl)
	case *expr.ScalarFunction:
		n := name(e)
		args := make([]expr.Expression, 0, e.NArgs())
		for i := 0; i < e.NArgs(); i++ {
			a, ok := e.Arg(i).(expr.Expression)
			if !ok {
				return nil
			}
			args = append(args, a)
		}
		switch {
		case n == "and" && top:
			// Each conjunct must be true: the union of theirs.
			out := map[int]bool{}
			for _, a := range args {
				for c := range nonnullable(a, true, nl) {
					out[c] = true
				}
			}
			return out
		case n == "and", n == "or":
			// An OR is true (an AND below the top not NULL) only if one
			// arm is: a column every arm rejects NULL for.
			var out map[int]bool
			for i, a := range args {
				s := nonnullable(a, top, nl)
				if i == 0 {
					out = s
					continue
				}
				for c := range out {
					if !s[c] {
						delete(out, c)
					}
				}
			}
			return out
		case n == "not" && len(args) == 1:
			// NOT is NULL when its argument is.
			return nonnullable(args[0], false, nl)
		case n == "is_not_null" && top && len(args) == 1:
			return nonnullable(args[0], false, nl)
		case strict[n]:
			out := map[int]bool{}
			for _, a := range args {
				for c := range nonnullable(a, false, nl) {
					out[c] = true
				}
			}
			return out
		}
	}
	return nil
}

// transferred are the conjuncts PostgreSQL's reconsider_outer_join_clause
// derives for the nullable side of an outer join: where a conjunct
// pushed into the preserved side fixes a column to a constant (p = k)
// and the join's condition equates it with a nullable-side column of the
// same type (p = n), n = k filters the nullable side, which changes no
// answer (a preserved row left by the filter has p = k, so only n = k
// rows can match it) and narrows what the nullable side computes:
// TPC-DS Q78's year filter on store sales reaches the web and catalog
// sales aggregated beside them. push and cond are over the join's
// columns (the left side's first, nl of them); the conjuncts returned
// are over the nullable side's own columns.
func transferred(push []expr.Expression, cond expr.Expression, nl, preserved int) []expr.Expression {
	onSide := func(c int) int {
		if c < nl {
			return 0
		}
		return 1
	}
	var out []expr.Expression
	for _, c := range push {
		col, lit, ok := columnEqualsLiteral(c)
		if !ok || onSide(col) != preserved {
			continue
		}
		for _, jc := range conjuncts(cond) {
			a, b, ok := columnsEqual(jc)
			if !ok {
				continue
			}
			if b == col {
				a, b = b, a
			}
			if a != col || onSide(b) == preserved || !fieldType(jc, b).Equals(lit.GetType().WithNullability(fieldType(jc, b).GetNullability())) {
				continue
			}
			own := b
			if preserved == 0 {
				own = b - nl
			}
			e := remap(c, func(int) int { return own })
			if !containsExpr(out, e) {
				out = append(out, e)
			}
		}
	}
	return out
}

// columnEqualsLiteral: e is equal(column, literal) or equal(literal,
// column).
func columnEqualsLiteral(e expr.Expression) (col int, lit expr.Literal, ok bool) {
	f, isFn := e.(*expr.ScalarFunction)
	if !isFn || name(f) != "equal" || f.NArgs() != 2 {
		return 0, nil, false
	}
	for i := 0; i < 2; i++ {
		c, isCol := plainColumn(f.Arg(i))
		l, isLit := f.Arg(1 - i).(expr.Literal)
		if isCol && isLit {
			return c, l, true
		}
	}
	return 0, nil, false
}

// columnsEqual: e is equal(column a, column b).
func columnsEqual(e expr.Expression) (a, b int, ok bool) {
	f, isFn := e.(*expr.ScalarFunction)
	if !isFn || name(f) != "equal" || f.NArgs() != 2 {
		return 0, 0, false
	}
	a, okA := plainColumn(f.Arg(0))
	b, okB := plainColumn(f.Arg(1))
	return a, b, okA && okB
}

// plainColumn: the argument x is a reference to a whole column of the
// input (fieldColumn).
func plainColumn(x types.FuncArg) (int, bool) {
	e, ok := x.(expr.Expression)
	if !ok {
		return 0, false
	}
	return fieldColumn(e)
}

// fieldType is the type of column c as the equality jc reads it.
func fieldType(jc expr.Expression, c int) types.Type {
	f := jc.(*expr.ScalarFunction)
	for i := 0; i < 2; i++ {
		if col, ok := plainColumn(f.Arg(i)); ok && col == c {
			return f.Arg(i).(expr.Expression).GetType()
		}
	}
	return nil
}
