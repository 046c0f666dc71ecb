package difftest

import "strconv"

// Subqueries in a grouped query's HAVING (issue 28): correlated to a
// group key by the key's qualified column (a.c0 under GROUP BY a.c0, or
// GROUP BY 1 of it), which the front end reads as the key's column of
// the aggregate (sql/scope.go, lookupOuterLevel), and an aggregate as
// the left operand of op ANY/ALL or IN (its test expression belongs to
// the grouped query: sql/walk.go).

// addHavingSubquery sometimes ANDs such a condition to the HAVING of
// the grouped query q over the input scope s.
func (g *Gen) addHavingSubquery(q *Query, s scope, ts []*Table) {
	if !g.p(0.25) {
		return
	}
	// The keys: the select items GROUP BY names, by position or as
	// written (a grouping set's keys are left out).
	var keys []*Expr
	for _, k := range q.GroupBy {
		if i, err := strconv.Atoi(k); err == nil && i >= 1 && i <= len(q.Select) {
			keys = append(keys, q.Select[i-1])
			continue
		}
		for _, e := range q.Select {
			if e.SQL() == k {
				keys = append(keys, e)
			}
		}
	}
	h := g.havingSubquery(ts, s, keys)
	switch {
	case h == nil:
	case q.Having == nil:
		q.Having = h
	default:
		q.Having = &Expr{Op: "and", Type: TBool, Args: []*Expr{q.Having, h}, Raises: q.Having.Raises}
	}
}

// havingSubquery draws such a condition over the grouped query's input
// scope s and its keys; nil when it draws none.
func (g *Gen) havingSubquery(ts []*Table, s scope, keys []*Expr) *Expr {
	t := pick(g, ts)
	inner := tableScope(t, "s")
	if g.p(0.5) {
		var cols []*Expr
		for _, k := range keys {
			if k.Op == "col" {
				cols = append(cols, k)
			}
		}
		if len(cols) == 0 {
			return nil
		}
		k := pick(g, cols)
		ic := inner.ofType(k.Type)
		if len(ic) == 0 {
			return nil
		}
		corr := &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"=", "=", "<", ">", "<>"}), Args: []*Expr{
			{Op: "col", Type: k.Type, Text: pick(g, ic).name}, {Op: "col", Type: k.Type, Text: k.Text}}}
		if g.p(0.5) {
			return &Expr{Op: pick(g, []string{"exists", "notexists"}), Type: TBool, Sub: &Sub{Table: t.Name, Where: corr}}
		}
		sub := &Sub{Table: t.Name, Item: &Expr{Op: "agg", Type: TInt, Text: "count"}, Where: corr}
		return &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{">", "<", "="}), Args: []*Expr{
			{Op: "agg", Type: TInt, Text: "count"}, {Op: "scalar", Type: TInt, Sub: sub}}}
	}
	// count(*) or min/max of a column, op ANY/ALL (SELECT col ...).
	typ := g.typ()
	ic := inner.ofType(typ)
	oc := s.ofType(typ)
	if len(ic) == 0 || len(oc) == 0 {
		return nil
	}
	a := &Expr{Op: "agg", Type: typ, Text: pick(g, []string{"min", "max"}), Args: []*Expr{{Op: "col", Type: typ, Text: pick(g, oc).name}}}
	sub := &Sub{Table: t.Name, Item: &Expr{Op: "col", Type: typ, Text: pick(g, ic).name}}
	if g.p(0.4) {
		sub.Where = g.expr(inner, TBool, 1, true)
	}
	if g.p(0.3) {
		return &Expr{Op: pick(g, []string{"insub", "notinsub"}), Type: TBool, Args: []*Expr{a}, Sub: sub}
	}
	op := pick(g, []string{"=", "<>", "<", ">", "<=", ">="}) + pick(g, []string{" ANY", " ALL"})
	return &Expr{Op: "cmp", Type: TBool, Text: op, Args: []*Expr{a, {Op: "scalar", Type: typ, Sub: sub}}}
}
