package optimize

import (
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// An IN, EXISTS or op ANY/ALL subquery that is a value, not a filter's
// conjunct (in a project's expressions, under OR or NOT, in CASE, a
// sort key, a filter conjunct that is not the subquery alone), becomes a
// LEFT MARK join of the relation whose expression holds it: its rows
// once each, and the mark, the OR over the subquery's rows of the
// comparison in three-valued logic (exec.JoinMark), which is SQL's
// answer for the row; the subquery expression is replaced by the mark
// column. PostgreSQL runs such a SubLink as a SubPlan (ExecScanSubPlan),
// ORing the combining operator's result over the subquery's rows, NULL
// when no row gives true and one gives NULL: the mark is that OR.
//
//	EXISTS (S)              mark on the correlation
//	x IN (S)                mark on the correlation AND x = y
//	x op ANY (S)            mark on the correlation AND x op y
//	x op ALL (S)            NOT mark on the correlation AND x !op y
//
// x op ALL (S) is the AND over S of x op y, which is NOT the OR of
// NOT (x op y), and NOT (x op y) is x !op y with the same NULLs (a
// comparison is NULL exactly when an operand is): so ALL is the negated
// mark of the negated comparison, TRUE over an empty S. The comparison
// is the join condition as it is, so a NULL x or y makes its pair NULL:
// every op, = and the others, on the hash join's keys or a residual,
// with no rewrite into aggregates (min/max and counts of NULLs give the
// same answers for < and >, but not for = or <>, and they would be a
// second form to keep right).
//
// The correlation is a filter of the subquery: where it is NULL the
// subquery has no such row, which must make the pair false, never NULL.
// An equality inner = outer stays a hash key: the subquery's rows whose
// inner side is NULL are filtered out first (they match no outer row),
// and where the outer side is NULL the subquery is empty for the row, so
// the value is the mark ANDed with outer IS NOT NULL (FALSE: IN, ANY
// and EXISTS of an empty set are false; ALL negates it, true). Every
// other correlation conjunct c is coalesce(c, false).

// markJoin joins cur (width w) with the set subquery sq, a value: the
// LEFT MARK join, the subquery's value over it, and its width (w+1).
func (u *unnester) markJoin(cur *substraitpb.Rel, w int, sq *substraitpb.Expression_Subquery, path string) (*substraitpb.Rel, *substraitpb.Expression, int, error) {
	path += ".subquery"
	set, err := setSubqueryOf(sq, path)
	if err != nil {
		return nil, nil, 0, err
	}
	s, xs, fn, all, subPath := set.rel, set.xs, set.fn, set.all, set.path
	if all {
		fn = cmpNegated[fn]
	}
	right, corr, cols, err := u.side(cur, s, w, subPath)
	if err != nil {
		return nil, nil, 0, err
	}
	if len(cols) < len(xs) {
		return nil, nil, 0, invalidAt(subPath, "subquery has %d columns for %d operands", len(cols), len(xs))
	}
	var conds, guards, innerNotNull []*substraitpb.Expression
	for _, c := range corr {
		inner, outer, ok := u.innerOuterEquality(c, w)
		if !ok {
			conds = append(conds, u.call("coalesce", requiredBoolean, c, falseExpr()))
			continue
		}
		conds = append(conds, c)
		innerNotNull = append(innerNotNull, u.call("is_not_null", requiredBoolean, shiftRefs(inner, -w)))
		guards = append(guards, u.call("is_not_null", requiredBoolean, proto.Clone(outer).(*substraitpb.Expression)))
	}
	if len(innerNotNull) > 0 {
		f := &substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: &substraitpb.FilterRel{
			Common: &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Direct_{Direct: &substraitpb.RelCommon_Direct{}}},
			Input:  right, Condition: u.and(innerNotNull)}}}
		right = u.made(f, u.width(right))
	}
	for i, x := range xs {
		conds = append(conds, u.call(fn, nullableBoolean, x, cols[i]))
	}
	j := &substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
		Common: &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Direct_{Direct: &substraitpb.RelCommon_Direct{}}},
		Left:   cur, Right: right, Expression: u.and(conds), Type: substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK}}}
	// A sublink that is a value PostgreSQL never pulls up: it is a
	// SubPlan (an InitPlan when uncorrelated) over the outer rows in
	// their order (subplanjoin.go; difftest seed 20261231 case 318877).
	markSubPlanJoin(j.GetJoin())
	value := fieldExpr(w)
	if len(guards) > 0 {
		value = u.and(append(guards, value))
	}
	if all {
		value = u.call("not", nullableBoolean, value)
	}
	return u.made(j, w+1), value, w + 1, nil
}

// innerOuterEquality recognizes a correlation conjunct equal(a, b) with
// one side over the subquery's columns (fields w and up, in the join's
// space) and the other over the outer query's (below w): those two.
func (u *unnester) innerOuterEquality(c *substraitpb.Expression, w int) (inner, outer *substraitpb.Expression, ok bool) {
	if u.funcName(c) != "equal" {
		return nil, nil, false
	}
	args := callArgs(c)
	if len(args) != 2 || hasSubquery(c) {
		return nil, nil, false
	}
	side := func(e *substraitpb.Expression) int { // 1 outer, 2 inner, 0 both or none
		below, above := refRange(e, w)
		switch {
		case below && !above:
			return 1
		case above && !below:
			return 2
		}
		return 0
	}
	switch a, b := side(args[0]), side(args[1]); {
	case a == 2 && b == 1:
		return args[0], args[1], true
	case a == 1 && b == 2:
		return args[1], args[0], true
	}
	return nil, nil, false
}

// falseExpr is the literal false.
func falseExpr() *substraitpb.Expression {
	return &substraitpb.Expression{RexType: &substraitpb.Expression_Literal_{Literal: &substraitpb.Expression_Literal{
		LiteralType: &substraitpb.Expression_Literal_Boolean{Boolean: false}}}}
}
