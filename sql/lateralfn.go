package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// A function in FROM is implicitly LATERAL in PostgreSQL (transformRangeFunction
// lets its arguments name the FROM items before it, with or without the
// keyword): FROM t, generate_series(1, t.n) AS g. Such a call is lowered as
// the left input projected with the call's arguments (hidden columns of
// the scope, so * leaves them out), lateral-joined to generate_series's
// read whose detail names those columns ({"left_field": k}; substrait.md
// §4): the optimizer keeps it as a correlated expand, not a subquery
// (plan/optimize/expand.go), and the planner runs exec.ExpandExec.
// generate_series WITH ORDINALITY of constants goes the same way over
// the FROM items before it (or one row).

// lateralFunction is the expand of the table function n over left (scope
// ls): the left input with the argument columns, its scope, and the
// function's read and scope. ok is false where n is not a
// generate_series call reading ls's columns (nor one WITH ORDINALITY): the
// caller lowers it as before.
func (l *lowerer) lateralFunction(left plan.Rel, ls *scope, n *pg_query.Node) (plan.Rel, *scope, plan.Rel, *scope, bool, error) {
	rf := n.GetRangeFunction()
	if rf == nil || rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) > 0 {
		return nil, nil, nil, nil, false, nil
	}
	items := rf.Functions[0].GetList().GetItems()
	fc := items[0].GetFuncCall()
	if fc == nil || funcName(fc) != "generate_series" || len(fc.Args) < 2 || len(fc.Args) > 3 {
		return nil, nil, nil, nil, false, nil
	}
	as := *ls
	as.noAggs = "in generate_series"
	if as.outer == nil {
		as.outer = l.outer // a LATERAL subquery's function may name the query around it
	}
	vs := make([]value, len(fc.Args))
	constant := true
	for i, a := range fc.Args {
		v, err := l.expr(a, &as)
		if err != nil {
			return nil, nil, nil, nil, false, err
		}
		if v.how == typed {
			_, lit := literalOf(v.e)
			constant = constant && lit
		}
		vs[i] = v
	}
	if constant && !rf.Ordinality {
		return nil, nil, nil, nil, false, nil // a plain extension-table read (from.go)
	}
	k := kindI32
	for _, v := range vs {
		vk := l.defaultKind(v)
		switch {
		case v.how != typed:
			vk = kindI32 // an untyped literal: the integer variant's argument
		case !vk.Integer():
			return nil, nil, nil, nil, false, fmt.Errorf("%w: generate_series over %s with arguments from an earlier FROM item%s", ErrUnsupported, vk, l.src.at(v.loc))
		}
		if vk != kindI32 && vk != kindI16 {
			k = kindI64 // generate_series(bigint, bigint) unless every argument is integer
		}
	}
	exprs := make([]expr.Expression, 3)
	for i, v := range vs {
		e, err := l.coerce(v, k)
		if err != nil {
			return nil, nil, nil, nil, false, err
		}
		exprs[i] = e
	}
	if exprs[2] == nil {
		exprs[2] = expr.NewPrimitiveLiteral(int64(1), false)
		if k == kindI32 {
			exprs[2] = expr.NewPrimitiveLiteral(int32(1), false)
		}
	}
	proj, err := l.b.Project(left, exprs...)
	if err != nil {
		return nil, nil, nil, nil, false, fmt.Errorf("%w: generate_series arguments: %w", ErrInvalid, err)
	}
	nl := len(ls.cols)
	pl := &scope{cols: append([]column{}, ls.cols...), outer: ls.outer}
	for _, e := range exprs {
		pl.cols = append(pl.cols, column{typ: e.GetType(), hidden: true})
	}
	ncols := 1
	if rf.Ordinality {
		ncols = 2
	}
	qual, names, err := l.functionColumns(rf, "generate_series", ncols)
	if err != nil {
		return nil, nil, nil, nil, false, err
	}
	detail := map[string]any{"relation": relGenerateSeries, "ordinality": rf.Ordinality}
	for i, key := range []string{"start", "stop", "step"} {
		detail[key] = map[string]any{"left_field": nl + i}
	}
	ts := []types.Type{k.Type(false), kindI64.Type(false)}[:ncols]
	right, err := l.extensionTable(detail, names, ts)
	if err != nil {
		return nil, nil, nil, nil, false, err
	}
	rs := &scope{cols: make([]column, ncols)}
	for i := range rs.cols {
		rs.cols[i] = column{qual: qual, name: names[i], typ: ts[i]}
	}
	return proj, pl, right, rs, true, nil
}

// aloneFunction lowers a FROM item's generate_series WITH ORDINALITY of
// constants: the expand of one row.
func (l *lowerer) aloneFunction(n *pg_query.Node) (plan.Rel, *scope, bool, error) {
	one, os, err := l.from(nil)
	if err != nil {
		return nil, nil, false, err
	}
	pl, ps, right, rs, ok, err := l.lateralFunction(one, os, n)
	if !ok || err != nil {
		return nil, nil, ok, err
	}
	rel, err := l.lateralJoin(pl, right, nil, plan.JoinTypeInner)
	return rel, &scope{cols: append(append([]column{}, ps.cols...), rs.cols...)}, true, err
}
