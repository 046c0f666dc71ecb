package difftest

// SELECT DISTINCT ON (issue 29): the first row of each group of keys in
// ORDER BY order. The ORDER BY begins with the keys (PostgreSQL's rule,
// else 42P10) and ends with the query's tiebreak keys, so which row is
// first is defined and the answer deterministic. The select list cannot
// raise: PostgreSQL computes it below its Unique, on every row, where
// stablerow computes it on the rows kept (no row may decide the answer
// by raising).

// distinctOn makes q SELECT DISTINCT ON (keys) items ... ORDER BY keys,
// [more keys,] tiebreak [LIMIT] [OFFSET].
func (g *Gen) distinctOn(q *Query, s scope) {
	for i, n := 0, g.between(1, 3); i < n; i++ {
		q.Select = append(q.Select, g.expr(s, g.typ(), 2, true))
	}
	key := func() *Expr {
		for try := 0; try < 5; try++ {
			e := g.leaf(s, g.typ())
			if g.p(0.3) {
				e = g.expr(s, g.typ(), 1, true)
			}
			if e.Op != "lit" { // a bare literal is refused in ORDER BY
				return e
			}
		}
		return nil
	}
	order := func(e *Expr) Order {
		o := Order{E: e, Desc: g.p(0.4)}
		if g.p(0.3) {
			o.Nulls = pick(g, []string{"FIRST", "LAST"})
		}
		return o
	}
	for i, n := 0, g.between(1, 2); i < n; i++ {
		if e := key(); e != nil {
			q.OrderBy = append(q.OrderBy, order(e))
		}
	}
	if len(q.OrderBy) == 0 {
		q.OrderBy = append(q.OrderBy, order(&Expr{Op: "col", Type: TInt, Text: q.Tiebreak[0]}))
	}
	q.DistinctOn = len(q.OrderBy)
	for i, n := 0, g.between(0, 2); i < n; i++ {
		if e := key(); e != nil {
			q.OrderBy = append(q.OrderBy, order(e))
		}
	}
	if g.p(0.3) {
		q.Limit = int64(g.between(0, 4))
	}
	if g.p(0.2) {
		q.Offset = int64(g.between(0, 3))
	}
}
