package difftest

import (
	"fmt"
	"strings"
)

// Set-returning functions in FROM that read an earlier FROM item (issue
// 28; PostgreSQL makes a function in FROM implicitly LATERAL; the engine
// runs it as an expand, exec/expand.go):
//
//	t AS a {, | , LATERAL | CROSS JOIN LATERAL | JOIN LATERAL | LEFT JOIN LATERAL}
//	  generate_series(<start>, <stop>[, <step>]) [WITH ORDINALITY] AS x(g[, o])
//	  [ON <condition> | ON TRUE]  (LEFT: either, per produced row)
//
// The arguments are a's integer columns (and key) reduced modulo 7 plus or
// minus a few, so a series is short, empty (start past stop) or absent (a
// NULL argument), and never overflows; the step is a non-zero constant
// (a zero one raises, and which row raises first is not defined). a.k and
// the series value (distinct within a row's series) order the rows totally.

// lateralFnFrom draws such a FROM clause into q; the scope is a's columns
// then x's.
func (g *Gen) lateralFnFrom(q *Query, ts []*Table) (scope, bool) {
	t0 := pick(g, ts)
	a := tableScope(t0, "a")
	var ints []string
	for _, c := range a {
		if c.typ == TInt || c.typ == TI32 || c.typ == TI16 {
			ints = append(ints, c.name)
		}
	}
	base := func() string {
		if g.p(0.2) {
			return fmt.Sprint(g.between(-2, 4))
		}
		return "(" + pick(g, ints) + " % 7)"
	}
	step := pick(g, []int{1, 1, 1, 2, 3, -1, -2})
	start, d := base(), g.between(-1, 4)
	stop := fmt.Sprintf("%s + %d", start, d)
	if step < 0 {
		stop = fmt.Sprintf("%s - %d", start, d)
	}
	if g.p(0.3) {
		stop = base()
	}
	args := start + ", " + stop
	if step != 1 || g.p(0.3) {
		args += fmt.Sprintf(", %d", step)
	}
	fn, x := g.seriesItem(args, TInt, 0.4)
	out := append(append(scope{}, a...), x...)
	var join string
	switch g.n(5) {
	case 0:
		join = ", " + fn
	case 1:
		join = ", LATERAL " + fn
	case 2:
		join = " CROSS JOIN LATERAL " + fn
	case 3:
		join = " LEFT JOIN LATERAL " + fn + " ON " + g.lateralOn(out) // gen_gen28.go
	default:
		join = " JOIN LATERAL " + fn + " ON " + g.expr(out, TBool, 2, true).SQL()
	}
	q.From = From{Kind: FromLateral, T0: t0.Name, T1: join}
	q.Tiebreak = []string{"a.k", "x.g"}
	return out, true
}

// seriesItem is the FROM item generate_series(args) AS x(g[, o]) whose
// values are of type typ, WITH ORDINALITY with probability pOrd, and the
// columns it adds to the scope.
func (g *Gen) seriesItem(args string, typ Type, pOrd float64) (string, scope) {
	fn := "generate_series(" + args + ")"
	cols := []string{"g"}
	x := scope{{"x.g", typ}}
	if g.p(pOrd) {
		fn += " WITH ORDINALITY"
		cols = append(cols, "o")
		x = append(x, scopeCol{"x.o", TInt})
	}
	return fn + " AS x(" + strings.Join(cols, ", ") + ")", x
}
