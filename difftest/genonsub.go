package difftest

// A subquery in a join's ON (issue 28: subqueries in every position): an
// EXISTS, IN, op ANY/ALL or scalar comparison (subqueryValue) as one
// more ON conjunct of an inner, LEFT, RIGHT or FULL join, correlated to
// the left side, the right side or both (plan/optimize/
// decorrelate_outerjoin.go: one reading only an outer join's nullable
// side filters that side, as PostgreSQL pushes it down; the others are
// computed per candidate pair). A FULL join keeps its equality, so
// PostgreSQL can run it (0A000 otherwise). Nothing in it raises: where
// PostgreSQL evaluates a SubPlan depends on its plan (the order of the
// join's quals), and an error would show only that order.

// onSubquery adds such a conjunct to q's two-table join in a tenth of
// the joins with an ON.
func (g *Gen) onSubquery(q *Query, ts []*Table, t0, t1 *Table) {
	if q.From.Join == "CROSS" || q.From.Join == "LIST" || !g.p(0.1) {
		return
	}
	var outer scope
	switch g.n(3) {
	case 0:
		outer = tableScope(t0, "a")
	case 1:
		outer = tableScope(t1, "b")
	default:
		outer = append(tableScope(t0, "a"), tableScope(t1, "b")...)
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
