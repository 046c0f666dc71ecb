package sql

import (
	"errors"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"google.golang.org/protobuf/proto"
)

// A correlated scalar subquery whose value is an aggregate and whose
// outer references are equalities in its WHERE (TPC-H Q2, Q17, Q20):
//
//	x < (SELECT 0.2 * avg(q) FROM t WHERE t.k = outer.k AND p)
//
// is decorrelated into a LEFT join with the subquery grouped by its side
// of the equalities:
//
//	LEFT JOIN (SELECT t.k AS k1, 0.2 * avg(q) AS v FROM t WHERE p GROUP BY t.k) s
//	       ON s.k1 = outer.k                             ... x < s.v
//
// It is the same value row by row: the group of k1 = outer.k holds the rows
// the correlated WHERE would keep, and an outer row no group matches (or
// whose key is NULL, which '=' never matches) gets NULL, the value of an
// aggregate over no rows. That last step is false for count, whose empty
// value is 0, so a subquery holding count is refused, as is any other
// shape (GROUP BY, HAVING, DISTINCT, LIMIT, a set operation, an outer
// reference outside such an equality).

// correlatedScalar joins the decorrelated form of sl onto rel (scope sc).
// It returns the joined rel and the column of the value in sc (the key
// and value columns are added to sc, hidden), or err wrapping
// errCorrelated when the subquery does not have the shape.
func (l *lowerer) correlatedScalar(rel plan.Rel, sc *scope, sl *pg_query.SubLink) (plan.Rel, subColumn, error) {
	sub := sl.Subselect.GetSelectStmt()
	refuse := func(why string) (plan.Rel, subColumn, error) {
		return nil, subColumn{}, fmt.Errorf("%w: correlated scalar subquery (%s)%s", errCorrelated, why, l.src.at(sl.Location))
	}
	if sub == nil || (sub.Op != pg_query.SetOperation_SETOP_NONE && sub.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED) ||
		sub.WithClause != nil || len(sub.DistinctClause) > 0 || len(sub.GroupClause) > 0 || sub.HavingClause != nil ||
		len(sub.WindowClause) > 0 || sub.LimitCount != nil || sub.LimitOffset != nil || len(sub.ValuesLists) > 0 ||
		len(sub.FromClause) == 0 || len(sub.TargetList) != 1 || containsSubLink(sub.WhereClause) {
		return refuse("only SELECT aggregate FROM ... WHERE ... decorrelates")
	}
	target := sub.TargetList[0].GetResTarget()
	calls := aggregateCalls(target.GetVal())
	if len(calls) == 0 {
		return refuse("its value is not an aggregate")
	}
	for _, fc := range calls {
		if name := funcName(fc); name == "count" {
			return refuse("count over no rows is 0, not NULL")
		}
	}
	// Sort the WHERE conjuncts: the subquery's own, and the correlated
	// equalities (inner side, outer side).
	saved := l.outer
	l.outer = sc
	_, inner, err := l.from(sub.FromClause)
	l.outer = saved
	if err != nil {
		return nil, subColumn{}, err
	}
	lowersInside := func(n *pg_query.Node) (bool, error) {
		is := *inner
		is.noAggs = "in WHERE"
		_, err := l.expr(n, &is)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, errCorrelated):
			return false, nil
		}
		return false, err
	}
	var own, innerKeys, outerKeys []*pg_query.Node
	for _, c := range andArgs(sub.WhereClause) {
		ok, err := lowersInside(c)
		if err != nil {
			return nil, subColumn{}, err
		}
		if ok {
			own = append(own, c)
			continue
		}
		ae := c.GetAExpr()
		if ae == nil || ae.Kind != pg_query.A_Expr_Kind_AEXPR_OP || len(ae.Name) != 1 || ae.Name[0].GetString_().GetSval() != "=" {
			return refuse("an outer reference outside an equality conjunct of its WHERE")
		}
		lIn, err := lowersInside(ae.Lexpr)
		if err != nil {
			return nil, subColumn{}, err
		}
		rIn, err := lowersInside(ae.Rexpr)
		if err != nil {
			return nil, subColumn{}, err
		}
		switch {
		case lIn && !rIn:
			innerKeys, outerKeys = append(innerKeys, ae.Lexpr), append(outerKeys, ae.Rexpr)
		case rIn && !lIn:
			innerKeys, outerKeys = append(innerKeys, ae.Rexpr), append(outerKeys, ae.Lexpr)
		default:
			return refuse("an equality with outer references on both sides")
		}
	}
	// The grouped subquery: keys k1..kn then the value.
	grouped := &pg_query.SelectStmt{FromClause: sub.FromClause, Op: pg_query.SetOperation_SETOP_NONE}
	// Only the groups of the outer rows' keys are looked up: the input
	// restricted to those keys first (restrict.go).
	if r, names := l.restriction(sc, outerKeys, sl); r != nil {
		grouped.FromClause = append(append([]*pg_query.Node{}, sub.FromClause...), r)
		for i, k := range innerKeys {
			ref := &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Fields: []*pg_query.Node{
				{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: restrictAlias}}},
				{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: names[i]}}},
			}, Location: -1}}}
			own = append(own, &pg_query.Node{Node: &pg_query.Node_AExpr{AExpr: &pg_query.A_Expr{
				Kind: pg_query.A_Expr_Kind_AEXPR_OP, Name: []*pg_query.Node{{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: "="}}}},
				Lexpr: cloneNode(k), Rexpr: ref, Location: -1}}})
		}
	}
	for i, k := range innerKeys {
		grouped.TargetList = append(grouped.TargetList, resTarget(fmt.Sprintf("k%d", i+1), k))
		grouped.GroupClause = append(grouped.GroupClause, proto.Clone(k).(*pg_query.Node))
	}
	grouped.TargetList = append(grouped.TargetList, resTarget("v", target.GetVal()))
	switch len(own) {
	case 0:
	case 1:
		grouped.WhereClause = own[0]
	default:
		grouped.WhereClause = &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: &pg_query.BoolExpr{
			Boolop: pg_query.BoolExprType_AND_EXPR, Args: own, Location: -1}}}
	}
	l.outer = sc
	g, _, err := l.selectStmt(grouped, nil)
	l.outer = saved
	if err != nil {
		return nil, subColumn{}, err
	}
	// The join condition over sc's columns then the subquery's.
	gt := g.RecordType().Types()
	js := &scope{cols: append([]column{}, sc.cols...)}
	for _, t := range gt {
		js.cols = append(js.cols, column{typ: t, hidden: true})
	}
	var conds []expr.Expression
	for i, o := range outerKeys {
		ov, err := l.expr(o, &scope{cols: sc.cols, outer: sc.outer, subs: sc.subs, noAggs: "in WHERE"})
		if err != nil {
			return nil, subColumn{}, err
		}
		ke, err := js.ref(len(sc.cols) + i)
		if err != nil {
			return nil, subColumn{}, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		args, _, err := l.unify(ov, value{e: ke, loc: sl.Location})
		if err != nil {
			return nil, subColumn{}, err
		}
		eq, err := l.call(urnComparison, "equal", sl.Location, args...)
		if err != nil {
			return nil, subColumn{}, err
		}
		conds = append(conds, eq)
	}
	cond := conds[0]
	if len(conds) > 1 {
		if cond, err = l.call(urnBoolean, "and", sl.Location, conds...); err != nil {
			return nil, subColumn{}, err
		}
	}
	j, err := l.b.Join(rel, g, cond, plan.JoinTypeLeft)
	if err != nil {
		return nil, subColumn{}, fmt.Errorf("%w: scalar subquery join: %w", ErrInvalid, err)
	}
	for _, t := range gt {
		sc.cols = append(sc.cols, column{typ: t.WithNullability(types.NullabilityNullable), hidden: true})
	}
	name := "?column?"
	if target.Name != "" {
		name = target.Name
	} else if fc := target.GetVal().GetFuncCall(); fc != nil {
		name = funcName(fc)
	}
	return j, subColumn{idx: len(sc.cols) - 1, name: name}, nil
}

func resTarget(name string, val *pg_query.Node) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{
		Name: name, Val: proto.Clone(val).(*pg_query.Node), Location: -1}}}
}
