package difftest

import (
	"fmt"
	"strings"
)

// generate_series over numerics and timestamps in FROM, over an earlier
// FROM item's columns or constants, and LEFT JOIN LATERAL of a function
// ON a condition (issue 28; the engine's one expand, exec/expand.go):
//
//	t AS a {, | , LATERAL | LEFT JOIN LATERAL}
//	  generate_series(<start>, <stop>, <step>) [WITH ORDINALITY] AS x(g[, o])
//	  [ON TRUE | ON <condition>]
//
// numeric: the start is a NUMERIC(8,2) column, an integer column cast to
// it, or a constant of scale 2; the step a constant of scale at most 2, so
// that every value has scale 2 in PostgreSQL too (its first value keeps
// the start's own scale, the rest the larger of the start's and step's;
// a stablerow column has one scale, README); the stop the start moved by a
// few steps, so a series is short, empty or absent (NULL).
// timestamp: the start a DATE column cast to timestamp or a TIMESTAMP
// column, the stop its day moved by a few days (date + integer: the
// interval arithmetic on a non-constant timestamp is not supported), the
// step an interval of days, weeks, months, years, hours, minutes or
// seconds, either sign.
// (generate_series over dates is PostgreSQL's timestamptz form, which
// stablerow refuses: not drawn.) a.k and the series value order the rows.

// seriesTypesFrom draws such a FROM clause into q; the scope is a's
// columns then x's.
func (g *Gen) seriesTypesFrom(q *Query, ts []*Table) (scope, bool) {
	t0 := pick(g, ts)
	a := tableScope(t0, "a")
	var nums, ints, dates, stamps []string
	for _, c := range a {
		switch c.typ {
		case TNumeric:
			nums = append(nums, c.name)
		case TInt, TI32, TI16:
			ints = append(ints, c.name)
		case TDate:
			dates = append(dates, c.name)
		case TTimestamp:
			stamps = append(stamps, c.name)
		}
	}
	var args string
	var typ Type
	if g.p(0.5) {
		typ = TNumeric
		start := pick(g, []string{"1.00", "-0.50", "2.25", "0.00"})
		switch {
		case len(nums) > 0 && g.p(0.6):
			start = pick(g, nums)
		case g.p(0.5):
			start = fmt.Sprintf("CAST(%s %% 7 AS NUMERIC(8,2))", pick(g, ints)) // a.k at least
		}
		step := pick(g, []string{"0.25", "0.5", "1", "1.50", "-0.25", "-1", "-0.75"})
		d := pick(g, []string{"0", "0.75", "1.5", "2", "3.25", "-1"})
		op := "+"
		if strings.HasPrefix(step, "-") {
			op = "-"
		}
		args = fmt.Sprintf("%s, %s %s %s, %s", start, start, op, d, step)
		if g.p(0.15) {
			args = fmt.Sprintf("%s, %s %s %s", start, start, op, d) // step 1
			if op == "-" {
				args = fmt.Sprintf("%s, %s + %s", start, start, d)
			}
		}
	} else {
		typ = TTimestamp
		var day, start string
		switch {
		case len(stamps) > 0 && (len(dates) == 0 || g.p(0.5)):
			c := pick(g, stamps)
			start, day = c, "CAST("+c+" AS DATE)"
		case len(dates) > 0:
			c := pick(g, dates)
			start, day = "CAST("+c+" AS TIMESTAMP)", c
		default:
			start = pick(g, []string{"TIMESTAMP '2024-01-31 10:00:00'", "TIMESTAMP '2023-12-31 23:59:59.5'", "TIMESTAMP '2000-02-29 00:00:00'"})
			day = "CAST(" + start + " AS DATE)"
		}
		step := pick(g, []string{"'1 day'", "'2 days'", "'1 week'", "'1 month'", "'1 year'", "'1 month 1 day'", "'-1 day'", "'-1 month'", "'-3 days'", "'6 hours'", "'-90 minutes'", "'1 day 1 second'"})
		n := pick(g, []int{0, 1, 3, 9, 40, 70})
		op := "+"
		if strings.HasPrefix(step, "'-") {
			op = "-"
		}
		args = fmt.Sprintf("%s, CAST(%s %s %d AS TIMESTAMP), INTERVAL %s", start, day, op, n, step)
	}
	fn, x := g.seriesItem(args, typ, 0.3)
	out := append(append(scope{}, a...), x...)
	var join string
	switch g.n(3) {
	case 0:
		join = ", " + fn
	case 1:
		join = ", LATERAL " + fn
	default:
		join = " LEFT JOIN LATERAL " + fn + " ON " + g.lateralOn(out)
	}
	q.From = From{Kind: FromLateral, T0: t0.Name, T1: join}
	q.Tiebreak = []string{"a.k", "x.g"}
	return out, true
}

// lateralOn draws a LEFT JOIN LATERAL function's ON: TRUE, or a
// condition over both sides, which PostgreSQL evaluates per produced row
// (a left row none of whose rows pass is NULL-extended).
func (g *Gen) lateralOn(out scope) string {
	if g.p(0.3) {
		return "TRUE"
	}
	return g.expr(out, TBool, 2, true).SQL()
}
