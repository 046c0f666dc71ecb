package difftest

import (
	"fmt"
	"strings"
)

// LATERAL items and correlation two levels out (issue 28: the optimizer's
// general unnesting of dependent joins, plan/optimize/decorrelate_general.go):
//
//	t AS a {, LATERAL | CROSS JOIN LATERAL | LEFT JOIN LATERAL | JOIN LATERAL}
//	  (SELECT ... FROM u AS s WHERE <correlation with a> [AND EXISTS (SELECT 1
//	   FROM v AS s2 WHERE s2.x = s.x AND s2.y op a.y)] ...) AS x [ON ...]
//
// The item is rows of s (with s.k, its key: the order is total), top-N per
// outer row (ORDER BY a column then s.k, LIMIT/OFFSET), an ungrouped
// aggregate (one row per outer row: count's 0 and NULLs where nothing
// matched), a grouped one (one row per group), or no FROM at all (one row
// of expressions over a). The correlation is an equality, an inequality,
// any expression over both, or none; a NULL outer value takes each path.
// Nothing in it raises (the order the sides evaluate in is not defined).

// lateralFrom draws such a FROM clause into q; the scope is a's columns
// then x's.
func (g *Gen) lateralFrom(q *Query, ts []*Table) (scope, bool) {
	t0, t1 := pick(g, ts), pick(g, ts)
	a, s := tableScope(t0, "a"), tableScope(t1, "s")
	both := append(append(scope{}, a...), s...)
	var where []string
	corr := func(ops []string) {
		typ := g.typ()
		ic, oc := s.ofType(typ), a.ofType(typ)
		if len(ic) == 0 || len(oc) == 0 {
			return
		}
		where = append(where, pick(g, ic).name+" "+pick(g, ops)+" "+pick(g, oc).name)
	}
	if g.p(0.7) {
		corr([]string{"="})
	}
	if g.p(0.3) {
		corr([]string{"<", ">", "<>", "<=", ">="})
	}
	if g.p(0.3) {
		where = append(where, g.expr(both, TBool, 2, true).SQL())
	}
	if g.p(0.3) {
		where = append(where, g.twoLevel(ts, s, a))
	}
	body := " FROM " + t1.Name + " AS s"
	if len(where) > 0 {
		body += " WHERE " + strings.Join(where, " AND ")
	}
	var items []string
	var x scope
	var keys []string // x's columns that order its rows totally per outer row
	item := func(sc scope, e *Expr) {
		if !readsColumn(e) {
			// A constant output PostgreSQL pulls up into the outer query
			// and folds there (pull_up_subqueries, then
			// eval_const_expressions: CAST(x.c AS bigint) of ' ' raises
			// while planning); the front end does not, for any subquery
			// in FROM, LATERAL or not (difftest seed 1 case 586; open,
			// reported to the lead). Drawn here as a column instead.
			t := e.Type
			e = &Expr{Op: "col", Type: TInt, Text: "a.k"}
			if cols := sc.ofType(t); len(cols) > 0 {
				e = &Expr{Op: "col", Type: t, Text: pick(g, cols).name}
			}
		}
		name := fmt.Sprintf("c%d", len(items))
		items = append(items, e.SQL()+" AS "+name)
		x = append(x, scopeCol{"x." + name, e.Type})
	}
	var sub string
	switch g.n(4) {
	case 0: // rows of s, perhaps the top N per outer row
		items, x, keys = append(items, "s.k AS sk"), append(x, scopeCol{"x.sk", TInt}), []string{"x.sk"}
		for i, n := 0, g.between(1, 2); i < n; i++ {
			item(both, g.expr(both, g.typ(), 2, true))
		}
		sub = "SELECT " + strings.Join(items, ", ") + body
		if g.p(0.5) {
			c := pick(g, s)
			sub += " ORDER BY " + c.name + pick(g, []string{"", " DESC", " NULLS FIRST", " DESC NULLS LAST"}) + ", s.k LIMIT " + fmt.Sprint(g.between(0, 3))
			if g.p(0.3) {
				sub += " OFFSET " + fmt.Sprint(g.between(1, 2))
			}
		}
	case 1: // an ungrouped aggregate: one row per outer row
		items = append(items, "count(*) AS c0")
		x = append(x, scopeCol{"x.c0", TInt})
		for _, c := range s.ofType(TInt) {
			if g.p(0.4) {
				n := fmt.Sprintf("c%d", len(items))
				items = append(items, pick(g, []string{"min", "max", "count"})+"("+c.name+") AS "+n)
				x = append(x, scopeCol{"x." + n, TInt})
			}
		}
		sub = "SELECT " + strings.Join(items, ", ") + body
	case 2: // grouped: one row per group
		gc := pick(g, s)
		items = append(items, gc.name+" AS g0", "count(*) AS c1")
		x, keys = append(x, scopeCol{"x.g0", gc.typ}, scopeCol{"x.c1", TInt}), []string{"x.g0"}
		sub = "SELECT " + strings.Join(items, ", ") + body + " GROUP BY " + gc.name
		if g.p(0.4) {
			oc := a.ofType(TInt)
			if len(oc) > 0 {
				sub += " HAVING count(*) > " + pick(g, oc).name
			}
		}
	default: // no FROM: expressions over a
		for i, n := 0, g.between(1, 2); i < n; i++ {
			item(a, g.expr(a, g.typ(), 2, true))
		}
		sub = "SELECT " + strings.Join(items, ", ")
	}
	out := append(append(scope{}, a...), x...)
	var join string
	switch g.n(4) {
	case 0:
		join = ", LATERAL (" + sub + ") AS x"
	case 1:
		join = " CROSS JOIN LATERAL (" + sub + ") AS x"
	case 2:
		join = " LEFT JOIN LATERAL (" + sub + ") AS x ON TRUE"
	default:
		join = pick(g, []string{" JOIN", " LEFT JOIN"}) + " LATERAL (" + sub + ") AS x ON " + g.expr(out, TBool, 2, true).SQL()
	}
	q.From = From{Kind: FromLateral, T0: t0.Name, T1: join}
	q.Tiebreak = append([]string{"a.k"}, keys...)
	return out, true
}

// twoLevel is an [NOT] EXISTS over another table correlated with the
// subquery's s and with a, the query two levels out.
func (g *Gen) twoLevel(ts []*Table, s, a scope) string {
	t2 := pick(g, ts)
	s2 := tableScope(t2, "s2")
	var conds []string
	pair := func(x scope, ops []string) {
		typ := g.typ()
		ic, oc := s2.ofType(typ), x.ofType(typ)
		if len(ic) > 0 && len(oc) > 0 {
			conds = append(conds, pick(g, ic).name+" "+pick(g, ops)+" "+pick(g, oc).name)
		}
	}
	pair(s, []string{"=", "<", "<>"})
	pair(a, []string{"=", ">", "<>"})
	if len(conds) == 0 {
		conds = append(conds, "s2.k = a.k")
	}
	return pick(g, []string{"", "NOT "}) + "EXISTS (SELECT 1 FROM " + t2.Name + " AS s2 WHERE " + strings.Join(conds, " AND ") + ")"
}

// readsColumn reports whether e reads a column (outside any subquery).
func readsColumn(e *Expr) bool {
	if e.Op == "col" {
		return true
	}
	for _, a := range e.Args {
		if readsColumn(a) {
			return true
		}
	}
	return false
}
