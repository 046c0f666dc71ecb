package difftest

// A row [NOT] IN a subquery (issue 28: sql/rowin.go): (x, y) IN (SELECT
// a, b FROM t AS s ...), the row's values over the outer scope, the
// subquery's a leaf of the same type per column, so the row comparison's
// three-valued answer (NULL where no column pair is false and one is
// NULL) shows. Drawn in a quarter of the IN subqueries of
// subqueryValue (gensubquery_positions.go), where it is a value (a mark
// join) or, under OR and NOT, a WHERE conjunct.

// rowIn draws the row IN over sub (its Where already drawn), nil in three
// quarters of the draws.
func (g *Gen) rowIn(outer, inner scope, sub *Sub) *Expr {
	if !g.p(0.25) {
		return nil
	}
	n := 2 + g.n(2)
	row := &Expr{Op: "row", Type: TBool}
	items := &Expr{Op: "items", Type: TBool}
	for range n {
		typ := g.typ()
		row.Args = append(row.Args, g.expr(outer, typ, 1, true))
		items.Args = append(items.Args, g.leaf(inner, typ))
	}
	sub.Item = items
	return &Expr{Op: pick(g, []string{"insub", "notinsub"}), Type: TBool, Args: []*Expr{row}, Sub: sub}
}
