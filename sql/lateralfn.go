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
	// generate_series(timestamp, timestamp, interval): the step is an
	// interval literal (interval is not a column type here).
	var iv *interval
	args := fc.Args
	if len(args) == 3 {
		v, ok, err := l.intervalLiteral(args[2])
		if err != nil {
			return nil, nil, nil, nil, false, err
		}
		if ok {
			iv, args = &v, args[:2]
		}
	}
	vs := make([]value, len(args))
	constant := true
	for i, a := range args {
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
	ks, err := l.seriesKinds(vs, iv != nil, fc.Location)
	if err != nil {
		return nil, nil, nil, nil, false, err
	}
	k := ks[0]
	if constant && !rf.Ordinality && k.Integer() {
		return nil, nil, nil, nil, false, nil // a plain extension-table read (from.go)
	}
	exprs := make([]expr.Expression, 3)
	for i, v := range vs {
		e, err := l.coerce(v, ks[i])
		if err != nil {
			return nil, nil, nil, nil, false, err
		}
		exprs[i] = e
	}
	switch {
	case iv != nil:
		exprs = exprs[:2]
	case exprs[2] == nil && k == kindI32:
		exprs[2] = expr.NewPrimitiveLiteral(int32(1), false)
	case exprs[2] == nil && k == kindI64:
		exprs[2] = expr.NewPrimitiveLiteral(int64(1), false)
	case exprs[2] == nil: // numeric: 1 at the start's scale
		if exprs[2], err = l.coerce(value{how: untypedString, str: "1", loc: fc.Location}, k); err != nil {
			return nil, nil, nil, nil, false, err
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
	for i, key := range []string{"start", "stop", "step"}[:len(exprs)] {
		detail[key] = map[string]any{"left_field": nl + i}
	}
	if iv != nil {
		detail["step"] = map[string]any{"interval": map[string]any{"months": iv.months, "days": iv.days, "microseconds": iv.us}}
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

// seriesKinds resolves generate_series's variant as PostgreSQL does and
// returns each argument's kind (the first is the series column's):
//
//	integer, integer [, integer]   integer; bigint if any is bigint
//	numeric among integers         numeric: start and step at their
//	                               larger scale (PostgreSQL's values
//	                               start + i*step have it), stop at its own
//	timestamp, timestamp, interval timestamp (a date or unknown beside a
//	                               timestamp is cast to it)
//
// PostgreSQL resolves generate_series(date, date, interval) to its
// timestamptz form, a type stablerow does not have: refused.
func (l *lowerer) seriesKinds(vs []value, interval bool, loc int32) ([]kind, error) {
	ks := make([]kind, 3)
	fill := func(k kind) []kind {
		for i := range ks {
			ks[i] = k
		}
		return ks[:len(vs)]
	}
	if interval {
		dates := 0
		for _, v := range vs {
			switch k := v.kind(); {
			case v.how == typed && k == kindTimestamp:
			case v.how == typed && k == kindDate:
				dates++
			case v.how == typed:
				return nil, fmt.Errorf("%w: function generate_series(%s, interval) does not exist%s", ErrType, k, l.src.at(v.loc))
			default:
				dates++ // unknown: PostgreSQL's resolution needs a typed timestamp beside it
			}
		}
		if dates == len(vs) {
			return nil, fmt.Errorf("%w: generate_series over dates is PostgreSQL's timestamp with time zone form (cast the arguments to timestamp)%s",
				ErrUnsupported, l.src.at(loc))
		}
		return fill(kindTimestamp), nil
	}
	numeric := false
	for _, v := range vs {
		if v.how == typed && v.kind().ID == idNumeric {
			numeric = true
		}
	}
	k := kindI32
	scale := func(v value) int32 {
		if v.how == typed && v.kind().ID == idNumeric {
			return v.kind().S
		}
		return 0
	}
	for _, v := range vs {
		vk := l.defaultKind(v)
		switch {
		case v.how != typed:
			vk = kindI32 // an untyped literal: the integer variant's argument
		case !vk.Integer() && vk.ID != idNumeric:
			return nil, fmt.Errorf("%w: generate_series over %s%s", ErrUnsupported, vk, l.src.at(v.loc))
		}
		if vk != kindI32 && vk != kindI16 {
			k = kindI64 // generate_series(bigint, bigint) unless every argument is integer
		}
	}
	if !numeric {
		return fill(k), nil
	}
	s := scale(vs[0])
	if len(vs) == 3 {
		s = max(s, scale(vs[2]))
	}
	fill(kindNumeric(38, s))
	ks[1] = kindNumeric(38, scale(vs[1]))
	return ks[:len(vs)], nil
}
