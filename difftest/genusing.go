package difftest

// JOIN ... USING (issue 29): a join of two tables on k and, sometimes,
// the other columns of one name and type in both, in place of ON. The
// unqualified merged column k joins the scope (PostgreSQL's merged
// column: the left's for INNER and LEFT, the right's for RIGHT,
// COALESCE of both for FULL); a.x and b.x stay each side's own.

// usingJoin rewrites q's ON join of t0 and t1 as a USING join, when it is
// an inner or outer join, and returns the scope with the merged column.
func (g *Gen) usingJoin(q *Query, t0, t1 *Table, s scope) scope {
	switch q.From.Join {
	case "", "LEFT", "RIGHT", "FULL":
	default:
		return s
	}
	using := []string{"k"}
	for _, c := range t0.Cols {
		if c.Name == "k" || !g.p(0.3) {
			continue
		}
		for _, d := range t1.Cols {
			if d.Name == c.Name && d.Type == c.Type {
				using = append(using, c.Name)
			}
		}
	}
	if g.p(0.3) {
		g.r.Shuffle(len(using), func(i, j int) { using[i], using[j] = using[j], using[i] })
	}
	q.From.Using, q.From.OnOp, q.From.OnAnd = using, "", nil
	q.From.On = [2]string{"a.k", "b.k"}
	return append(s, scopeCol{"k", TInt})
}
