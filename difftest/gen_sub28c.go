package difftest

import "strings"

// Subquery shapes of issue 28 that PostgreSQL runs and that were refused:
//
//   - A correlation inside a subquery's join ON: EXISTS / NOT EXISTS /
//     a count over (t AS s KIND JOIN u AS j ON j.c = s.c AND j.d op
//     outer.e), KIND inner, LEFT, RIGHT or FULL (plan/optimize/
//     decorrelate_fulljoin.go for RIGHT and FULL). The FULL join keeps
//     its equality, so PostgreSQL can run it (0A000 otherwise). A WHERE
//     on the NULL-extended side's column shows the NULL extension.
//   - x [NOT] LIKE|ILIKE ANY|ALL (SELECT s.c || '%' ...), over text and
//     varchar (sql/likeany.go): the appended % keeps a value ending in
//     the escape character a valid pattern.
//   - A scalar subquery as one more GROUP BY key, correlated to the FROM
//     item or not (sql/groupby.go; optimize.aggregateSubqueries).
//   - An outer query's aggregate inside a subquery of its HAVING:
//     [NOT] EXISTS (SELECT 1 FROM t AS oa WHERE oa.c op max(a.d)), the
//     aggregate the grouped query's (sql/outeragg.go).
//
// Nothing in them raises.

// sub28cValue draws one boolean value of the first two shapes over the
// outer scope; nil when the tables give no column pair for it.
func (g *Gen) sub28cValue(ts []*Table, outer scope) *Expr {
	if g.p(0.35) {
		if v := g.likeAnySub(ts, outer); v != nil {
			return v
		}
	}
	return g.joinOnCorrSub(ts, outer)
}

// joinOnCorrSub is a subquery whose join ON reads the outer row.
func (g *Gen) joinOnCorrSub(ts []*Table, outer scope) *Expr {
	t1, t2 := pick(g, ts), pick(g, ts)
	s, j := tableScope(t1, "s"), tableScope(t2, "j")
	pair := func(a, b scope, ops []string) *Expr {
		for try := 0; try < 8; try++ {
			typ := g.typ()
			ac, bc := a.ofType(typ), b.ofType(typ)
			if len(ac) == 0 || len(bc) == 0 {
				continue
			}
			return &Expr{Op: "cmp", Type: TBool, Text: pick(g, ops), Args: []*Expr{
				{Op: "col", Type: typ, Text: pick(g, ac).name}, {Op: "col", Type: typ, Text: pick(g, bc).name}}}
		}
		return nil
	}
	eq := pair(j, s, []string{"="})
	corrSide := j
	if g.p(0.35) {
		corrSide = s
	}
	corr := pair(corrSide, outer, []string{"=", "<", ">", "<>", "<=", ">="})
	if eq == nil || corr == nil {
		return nil
	}
	kind := pick(g, []string{"LEFT", "LEFT", "RIGHT", "FULL", "INNER"})
	sub := &Sub{Table: t1.Name, Join: &SubJoin{Kind: kind, Table: t2.Name, Alias: "j",
		On: &Expr{Op: "and", Type: TBool, Args: []*Expr{eq, corr}}}}
	// Which side was NULL-extended shows in a WHERE on its column.
	side := pick(g, []scope{s, j})
	col := pick(g, side)
	if g.p(0.6) {
		op := pick(g, []string{"isnull", "isnotnull"})
		sub.Where = &Expr{Op: op, Type: TBool, Args: []*Expr{{Op: "col", Type: col.typ, Text: col.name}}}
	}
	switch g.n(4) {
	case 0:
		return &Expr{Op: "notexists", Type: TBool, Sub: sub}
	case 1:
		c := pick(g, side)
		sub.Item = &Expr{Op: "agg", Type: TInt, Text: "count", Args: []*Expr{{Op: "col", Type: c.typ, Text: c.name}}}
		return &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{">", "=", "<"}), Args: []*Expr{
			{Op: "scalar", Type: TInt, Sub: sub}, {Op: "lit", Type: TInt, Text: pick(g, []string{"0", "1", "2", "4"})}}}
	}
	return &Expr{Op: "exists", Type: TBool, Sub: sub}
}

// likeAnySub is x [NOT] LIKE|ILIKE ANY|ALL (SELECT s.c || '%' FROM t AS s
// [WHERE ...]).
func (g *Gen) likeAnySub(ts []*Table, outer scope) *Expr {
	t := pick(g, ts)
	inner := tableScope(t, "s")
	var oc, ic []scopeCol
	for _, typ := range []Type{TText, TVarchar} {
		oc, ic = append(oc, outer.ofType(typ)...), append(ic, inner.ofType(typ)...)
	}
	if len(oc) == 0 || len(ic) == 0 {
		return nil
	}
	x, p := pick(g, oc), pick(g, ic)
	item := &Expr{Op: "bin", Type: TText, Text: "||", Args: []*Expr{
		{Op: "col", Type: p.typ, Text: p.name}, {Op: "lit", Type: TText, Text: "'%'"}}}
	if g.p(0.3) {
		item = &Expr{Op: "bin", Type: TText, Text: "||", Args: []*Expr{{Op: "lit", Type: TText, Text: "'%'"}, item}}
	}
	sub := &Sub{Table: t.Name, Item: item}
	if g.p(0.5) {
		sub.Where = g.expr(inner, TBool, 1, true)
	}
	if g.p(0.3) { // correlated too
		c := pick(g, ic)
		w := &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"<>", "<", ">="}), Args: []*Expr{
			{Op: "col", Type: c.typ, Text: c.name}, {Op: "col", Type: x.typ, Text: x.name}}}
		if sub.Where == nil {
			sub.Where = w
		} else {
			sub.Where = &Expr{Op: "and", Type: TBool, Args: []*Expr{sub.Where, w}}
		}
	}
	op := pick(g, []string{"LIKE", "ILIKE", "NOT LIKE", "NOT ILIKE"}) + pick(g, []string{" ANY", " ALL"})
	return &Expr{Op: "cmp", Type: TBool, Text: op, Args: []*Expr{{Op: "col", Type: x.typ, Text: x.name}, {Op: "scalar", Type: TText, Sub: sub}}}
}

// sub28cGrouped adds this file's shapes to the grouped query q over s.
func (g *Gen) sub28cGrouped(q *Query, s scope, ts []*Table) {
	for _, k := range q.GroupBy {
		if strings.Contains(k, "ROLLUP") || strings.Contains(k, "CUBE") || strings.Contains(k, "GROUPING") {
			return
		}
	}
	g.addGroupBySubquery(q, s, ts)
	g.addOuterAggHaving(q, s, ts)
}

// addOuterAggHaving sometimes ANDs to q's HAVING a subquery reading an
// aggregate of q: [NOT] EXISTS (SELECT 1 FROM t AS oa WHERE oa.c op
// agg(x)), agg max, min or count of a column of s (nothing that raises).
func (g *Gen) addOuterAggHaving(q *Query, s scope, ts []*Table) {
	if !g.p(0.15) {
		return
	}
	t := pick(g, ts)
	inner := tableScope(t, "oa")
	for try := 0; try < 6; try++ {
		typ := pick(g, []Type{TInt, TI32, TI16, TText, TDate, TNumeric})
		ic, oc := inner.ofType(typ), s.ofType(typ)
		if len(ic) == 0 || len(oc) == 0 {
			continue
		}
		agg := &Expr{Op: "agg", Type: typ, Text: pick(g, []string{"max", "min"}), Args: []*Expr{{Op: "col", Type: typ, Text: pick(g, oc).name}}}
		if typ == TInt && g.p(0.3) {
			agg = &Expr{Op: "agg", Type: TInt, Text: "count", Args: []*Expr{{Op: "col", Type: typ, Text: pick(g, oc).name}}}
		}
		w := &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"<", ">", "=", "<>", "<=", ">="}), Args: []*Expr{
			{Op: "col", Type: typ, Text: pick(g, ic).name}, agg}}
		h := &Expr{Op: pick(g, []string{"exists", "notexists"}), Type: TBool, Sub: &Sub{Table: t.Name, Alias: "oa", Where: w}}
		if q.Having == nil {
			q.Having = h
		} else {
			q.Having = &Expr{Op: "and", Type: TBool, Args: []*Expr{q.Having, h}, Raises: q.Having.Raises}
		}
		return
	}
}

// addGroupBySubquery sometimes adds a scalar subquery to the GROUP BY of
// the grouped query q over the input scope s: a count or max over a table
// correlated to a column of s, or uncorrelated. Not under grouping sets
// (their keys are one item), nor beside a LIMIT (the extra key splits
// groups, and which of equal rows a LIMIT keeps is not defined).
func (g *Gen) addGroupBySubquery(q *Query, s scope, ts []*Table) {
	if !g.p(0.2) || len(q.GroupBy) == 0 || q.Limit >= 0 || q.Offset >= 0 {
		return
	}
	t := pick(g, ts)
	inner := tableScope(t, "gs")
	sub := &Sub{Table: t.Name, Alias: "gs", Item: &Expr{Op: "agg", Type: TInt, Text: "count"}}
	for try := 0; try < 6; try++ {
		typ := g.typ()
		ic, oc := inner.ofType(typ), s.ofType(typ)
		if len(ic) == 0 || len(oc) == 0 {
			continue
		}
		sub.Where = &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"=", "<", ">", "<>"}), Args: []*Expr{
			{Op: "col", Type: typ, Text: pick(g, ic).name}, {Op: "col", Type: typ, Text: pick(g, oc).name}}}
		if g.p(0.3) && typ == TInt {
			sub.Item = &Expr{Op: "agg", Type: typ, Text: "max", Args: []*Expr{{Op: "col", Type: typ, Text: pick(g, ic).name}}}
		}
		break
	}
	q.GroupBy = append(q.GroupBy, (&Expr{Op: "scalar", Type: TInt, Sub: sub}).SQL())
}
