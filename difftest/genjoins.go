package difftest

import "fmt"

// manyJoin draws a FROM of 3 to 12 tables (issue 28: joins of 2-12
// tables in random order), as explicit joins (each INNER or LEFT, on an
// equality with an earlier table: chains, stars and trees) or as a FROM
// list whose equalities are in WHERE, written in a shuffled order, so
// that the optimizer's join order, not the text's, decides the plan.
// Most joins are on the key columns, which are unique per table, so
// the result stays no larger than a table; only small joins use other
// columns of one type, whose duplicates multiply rows.
func (g *Gen) manyJoin(q *Query, tables []*Table) scope {
	n := g.between(3, 6)
	if g.p(0.15) {
		n = g.between(7, 12)
	}
	list := g.p(0.5)
	var s scope
	f := From{Kind: FromMany, List: list}
	for i := range n {
		t := pick(g, tables)
		alias := string(rune('a' + i))
		it := ManyItem{Table: t.Name, Alias: alias}
		own := tableScope(t, alias)
		if i > 0 {
			p := f.Many[g.n(i)] // an earlier item: chains, stars and trees
			it.OnL, it.OnR = p.Alias+".k", alias+".k"
			if n <= 4 && g.p(0.4) {
				it.OnL, it.OnR = g.joinKeys(scopeOf(tables, p), own, it.OnL, it.OnR)
			}
			it.Left = !list && g.p(0.35)
		}
		f.Many = append(f.Many, it)
		s = append(s, own...)
		q.Tiebreak = append(q.Tiebreak, alias+".k")
	}
	if list {
		f.Order = g.perm(n)
	}
	q.From = f
	return s
}

// scopeOf is the columns of p's table (by alias) among the tables.
func scopeOf(tables []*Table, p ManyItem) scope {
	for _, t := range tables {
		if t.Name == p.Table {
			return tableScope(t, p.Alias)
		}
	}
	panic(fmt.Sprintf("difftest: no table %s", p.Table))
}

// perm is a random permutation of 0..n-1.
func (g *Gen) perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := g.n(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}
