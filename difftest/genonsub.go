package difftest

// A subquery in a join's ON (issue 28: subqueries in every position): an
// EXISTS, IN, op ANY/ALL or scalar comparison (subqueryValue) as one
// more ON conjunct of an inner join, over either side, or of a LEFT
// join, over its right side only (plan/optimize/decorrelate_outerjoin.go
// computes it per right row; one reading the left side is refused, so
// it is not drawn). Nothing in it raises: PostgreSQL evaluates it per
// candidate pair, stablerow per right row, and an error on a row that
// meets no pair would raise only here.

// onSubquery adds such a conjunct to q's two-table join in a tenth of
// the inner and LEFT joins.
func (g *Gen) onSubquery(q *Query, ts []*Table, t0, t1 *Table) {
	if (q.From.Join != "" && q.From.Join != "LEFT") || !g.p(0.1) {
		return
	}
	outer := tableScope(t1, "b")
	if q.From.Join == "" {
		outer = append(tableScope(t0, "a"), outer...)
	}
	v := g.subqueryValue(ts, outer)
	if v.Type != TBool {
		v = &Expr{Op: "isnull", Type: TBool, Args: []*Expr{v}}
	}
	if q.From.OnAnd != nil {
		v = &Expr{Op: "and", Type: TBool, Args: []*Expr{q.From.OnAnd, v}}
	}
	q.From.OnAnd = v
}
