package difftest

import "fmt"

// Row comparisons (issue 28: sql/rowcmp.go): a row constructor compared
// with another ((x, y) < (u, v)), with a subquery of one row ((x, y) >=
// (SELECT s.a, s.b FROM t AS s WHERE s.k = K), at most one row since k
// is unique, none when K is no key: the row of NULLs), or with each row
// of a subquery (op ANY / ALL), with every operator, so PostgreSQL's
// lexicographic order and its NULL rule (the first unequal pair decides,
// NULL if it holds a NULL) show. The columns pair values of one type.
// Drawn in a quarter of subqueryValue's comparisons
// (gensubquery_positions.go), where it is a value or a WHERE conjunct.

// rowCompare draws such a comparison over the outer scope, its subquery
// sub (its Where already drawn) over inner; nil in three quarters of the
// draws.
func (g *Gen) rowCompare(ts []*Table, outer, inner scope, sub *Sub) *Expr {
	if !g.p(0.25) {
		return nil
	}
	n := 2 + g.n(2)
	row := &Expr{Op: "row", Type: TBool}
	items := &Expr{Op: "items", Type: TBool}
	other := &Expr{Op: "row", Type: TBool}
	for range n {
		typ := g.typ()
		row.Args = append(row.Args, g.expr(outer, typ, 1, true))
		items.Args = append(items.Args, g.leaf(inner, typ))
		other.Args = append(other.Args, g.expr(outer, typ, 1, true))
	}
	op := pick(g, []string{"=", "<>", "<", ">", "<=", ">="})
	switch g.n(3) {
	case 0: // two rows
		return &Expr{Op: "cmp", Type: TBool, Text: op, Args: []*Expr{row, other}}
	case 1: // a subquery of at most one row: by the unique key, and sub's Where
		var t *Table
		for _, x := range ts {
			if x.Name == sub.Table {
				t = x
			}
		}
		key := &Expr{Op: "lit", Type: TInt, Text: fmt.Sprintf("CAST(%d AS BIGINT)", g.between(-3, 12))}
		if t != nil && len(t.Rows) > 0 && g.p(0.7) {
			key.Text = "CAST(" + pick(g, t.Rows)[0] + " AS BIGINT)"
		}
		where := &Expr{Op: "cmp", Type: TBool, Text: "=", Args: []*Expr{{Op: "col", Type: TInt, Text: "s.k"}, key}}
		if sub.Where != nil {
			where = &Expr{Op: "and", Type: TBool, Args: []*Expr{where, sub.Where}}
		}
		one := &Sub{Table: sub.Table, Item: items, Where: where}
		return &Expr{Op: "cmp", Type: TBool, Text: op, Args: []*Expr{row, {Op: "scalar", Type: TBool, Sub: one}}}
	}
	sub.Item = items
	op += pick(g, []string{" ANY", " ALL"})
	return &Expr{Op: "cmp", Type: TBool, Text: op, Args: []*Expr{row, {Op: "scalar", Type: TBool, Sub: sub}}}
}
