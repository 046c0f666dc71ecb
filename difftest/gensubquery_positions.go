package difftest

// EXISTS, IN and op ANY/ALL subqueries as values (issue 28: mark joins),
// where PostgreSQL's three-valued answer shows: in the select list, bare
// (TRUE, FALSE or NULL), under IS NULL, NOT, OR, or as a CASE condition;
// and as a WHERE conjunct under OR or NOT. The subquery is often
// correlated: by an equality (the mark join's hash key), by an
// inequality or <> (a residual, nested loop), or both; nothing in it
// raises. op ANY/ALL is written as a cmp whose right operand is the
// subquery ("(x > ANY (SELECT ...))"), which ast.go renders as is.

// subqueryValue draws one such value over the outer scope.
func (g *Gen) subqueryValue(ts []*Table, outer scope) *Expr {
	t := pick(g, ts)
	inner := tableScope(t, "s")
	var where *Expr
	and := func(e *Expr) {
		if where == nil {
			where = e
		} else {
			where = &Expr{Op: "and", Type: TBool, Args: []*Expr{where, e}}
		}
	}
	corr := func(ops []string) {
		typ := g.typ()
		ic, oc := inner.ofType(typ), outer.ofType(typ)
		if len(ic) == 0 || len(oc) == 0 {
			return
		}
		and(&Expr{Op: "cmp", Type: TBool, Text: pick(g, ops), Args: []*Expr{
			{Op: "col", Type: typ, Text: pick(g, ic).name}, {Op: "col", Type: typ, Text: pick(g, oc).name}}})
	}
	if g.p(0.5) {
		corr([]string{"="})
	}
	if g.p(0.3) {
		corr([]string{"<", ">", "<>", "<=", ">="})
	}
	if g.p(0.4) {
		and(g.expr(inner, TBool, 2, true))
	}
	sub := &Sub{Table: t.Name, Where: where}
	var v *Expr
	if g.p(0.15) {
		v = g.sub28cValue(ts, outer) // gen_sub28c.go
	}
	switch k := g.n(5); {
	case v != nil:
	case k == 4:
		if v = g.dependentAgg(ts, outer); v == nil {
			v = &Expr{Op: "exists", Type: TBool, Sub: sub}
		}
	case k == 0:
		if g.p(0.3) {
			if v = g.deepSubquery(ts, outer); v != nil { // gendeep.go
				break
			}
		}
		v = &Expr{Op: pick(g, []string{"exists", "notexists"}), Type: TBool, Sub: sub}
	case k == 1:
		if v = g.rowIn(outer, inner, sub); v != nil { // genrowin.go
			break
		}
		typ := g.typ()
		sub.Item = g.leaf(inner, typ)
		v = &Expr{Op: pick(g, []string{"insub", "notinsub"}), Type: TBool, Args: []*Expr{g.expr(outer, typ, 1, true)}, Sub: sub}
	default:
		if v = g.rowCompare(ts, outer, inner, sub); v != nil { // genrowcmp.go
			break
		}
		typ := g.typ()
		sub.Item = g.leaf(inner, typ)
		op := pick(g, []string{"=", "<>", "<", ">", "<=", ">="}) + pick(g, []string{" ANY", " ALL"})
		v = &Expr{Op: "cmp", Type: TBool, Text: op, Args: []*Expr{g.expr(outer, typ, 1, true), {Op: "scalar", Type: typ, Sub: sub}}}
	}
	switch g.n(6) {
	case 0:
		return &Expr{Op: "not", Type: TBool, Args: []*Expr{v}}
	case 1:
		return &Expr{Op: "or", Type: TBool, Args: []*Expr{v, g.expr(outer, TBool, 1, true)}}
	case 2:
		return &Expr{Op: "isnull", Type: TBool, Args: []*Expr{v}}
	case 3:
		typ := g.typ()
		return &Expr{Op: "case", Type: typ, Text: "else", Args: []*Expr{v, g.leaf(outer, typ), g.leaf(outer, typ)}}
	}
	return v
}

// subqueryConjunct is a WHERE conjunct holding a subquery value: under
// OR or NOT (a plain conjunct is a semi or anti join, drawn by
// subPredicate).
func (g *Gen) subqueryConjunct(ts []*Table, outer scope) *Expr {
	v := g.subqueryValue(ts, outer)
	if v.Type != TBool {
		return &Expr{Op: "isnull", Type: TBool, Args: []*Expr{v}}
	}
	if v.Op == "or" || v.Op == "not" {
		return v
	}
	return &Expr{Op: "or", Type: TBool, Args: []*Expr{v, g.expr(outer, TBool, 1, true)}}
}

// dependentAgg compares an outer value with a correlated aggregate whose
// correlation is not an equality: x op (SELECT agg(e) FROM t AS s WHERE
// s.c op2 outer.d [OR|AND ...] [AND local]), op2 one of < > <> <= >=
// (plan/optimize/decorrelate_dependent.go: the aggregate over the outer
// rows' distinct values). count too (its value over no rows is 0); not
// sum of integers (stablerow's bigint sum raises where PostgreSQL's
// numeric does not), nothing that raises. nil when no column pair of one
// type correlates.
func (g *Gen) dependentAgg(ts []*Table, outer scope) *Expr {
	t := pick(g, ts)
	inner := tableScope(t, "s")
	var where *Expr
	for i, n := 0, g.between(1, 2); i < n; i++ {
		typ := pick(g, []Type{TInt, TText, TI32, TI16, TFloat})
		ic, oc := inner.ofType(typ), outer.ofType(typ)
		if len(ic) == 0 || len(oc) == 0 {
			continue
		}
		c := &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"<", ">", "<>", "<=", ">="}), Args: []*Expr{
			{Op: "col", Type: typ, Text: pick(g, ic).name}, {Op: "col", Type: typ, Text: pick(g, oc).name}}}
		switch {
		case where == nil:
			where = c
		case g.p(0.5):
			where = &Expr{Op: "or", Type: TBool, Args: []*Expr{where, c}}
		default:
			where = &Expr{Op: "and", Type: TBool, Args: []*Expr{where, c}}
		}
	}
	if where == nil {
		return nil
	}
	if g.p(0.4) {
		where = &Expr{Op: "and", Type: TBool, Args: []*Expr{where, g.expr(inner, TBool, 2, true)}}
	}
	var agg *Expr
	for try := 0; try < 20 && agg == nil; try++ {
		a := g.aggregate(inner)
		if a.Op == "agg" && a.Text != "sum" && !a.Raises {
			agg = a
		}
	}
	if agg == nil {
		return nil
	}
	sub := &Expr{Op: "scalar", Type: agg.Type, Sub: &Sub{Table: t.Name, Item: agg, Where: where}}
	return &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"=", "<", ">=", "<>"}), Args: []*Expr{g.leaf(outer, agg.Type), sub}}
}
