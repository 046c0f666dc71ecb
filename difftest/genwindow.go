package difftest

import (
	"fmt"
	"strings"
)

// Window functions (issue 29): a call f(...) OVER (PARTITION BY ...
// ORDER BY ... frame) in the SELECT list of a plain query.
//
// Its value must be defined for the comparison to mean anything, so the
// window either orders totally (its own keys, then the query's tiebreak
// keys, unique per row) and may draw any function and frame, or orders
// by its own keys only, with peers, and draws only what ties cannot
// change: ranks and distributions, count, sum and avg of integers and
// numerics, min and max of integers and text, and RANGE offsets over one
// integer key. Left out: sum and avg of floats without a total order
// (the addition order), lag/lead defaults of numeric, char and varchar
// (PostgreSQL's anycompatible result drops the typmod: lag(d, 1, 0) is
// 0, not 0.00), sum(bigint) where PostgreSQL's numeric total leaves
// bigint (stablerow raises: marked Raises, as genagg.go's).
func (g *Gen) windowFunc(s scope, tiebreak []string) *Expr {
	total := len(tiebreak) > 0 && g.p(0.6)
	col := func(types ...Type) (scopeCol, bool) {
		var cs []scopeCol
		for _, t := range types {
			cs = append(cs, s.ofType(t)...)
		}
		if len(cs) == 0 {
			return scopeCol{}, false
		}
		return pick(g, cs), true
	}
	var part []string
	for i, n := 0, g.between(0, 2); i < n; i++ {
		if c, ok := col(allTypes...); ok {
			part = append(part, c.name)
		}
	}
	var order []string
	var rangeKey bool // ORDER BY one integer column: RANGE offsets allowed
	if total || g.p(0.8) {
		n := g.between(0, 2)
		if !total && n == 0 {
			n = 1
		}
		for i := 0; i < n; i++ {
			c, ok := col(allTypes...)
			if !ok {
				break
			}
			o := c.name
			if g.p(0.4) {
				o += " DESC"
			}
			if g.p(0.3) {
				o += pick(g, []string{" NULLS FIRST", " NULLS LAST"})
			}
			order = append(order, o)
			rangeKey = n == 1 && !total && (c.typ == TInt || c.typ == TI32 || c.typ == TI16)
		}
		if total {
			order = append(order, tiebreak...)
		}
	}
	t, call, raises, framed := g.windowCall(col, total)
	if t < 0 {
		return nil
	}
	over := ""
	if len(part) > 0 {
		over = "PARTITION BY " + strings.Join(part, ", ")
	}
	if len(order) > 0 {
		over = strings.TrimSpace(over + " ORDER BY " + strings.Join(order, ", "))
	}
	if framed && g.p(0.6) {
		over = strings.TrimSpace(over + " " + g.withExclude(g.frameOrGroups(total, rangeKey, len(order) > 0))) // genwingroups.go, genwinexclude.go
	}
	return &Expr{Op: "window", Type: t, Text: call + " OVER (" + over + ")", Raises: raises}
}

// windowCall draws the function: its type, its call text, whether it may
// raise, and whether a frame applies to it. t < 0: nothing fits s.
func (g *Gen) windowCall(col func(...Type) (scopeCol, bool), total bool) (t Type, call string, raises, framed bool) {
	ints := []Type{TInt, TI16, TI32}
	for try := 0; try < 5; try++ {
		switch k := g.n(13); {
		case k == 0:
			return TInt, pick(g, []string{"rank()", "dense_rank()"}), false, false
		case k == 1:
			return TFloat, pick(g, []string{"percent_rank()", "cume_dist()"}), false, false
		case k == 2:
			return TInt, "count(*)", false, true
		case k == 3:
			if c, ok := col(allTypes...); ok {
				return TInt, "count(" + c.name + ")", false, true
			}
		case k == 4:
			if c, ok := col(ints...); ok {
				return TInt, "sum(" + c.name + ")", c.typ == TInt, true
			}
		case k == 5:
			if c, ok := col(TNumeric); ok {
				return TNumeric, pick(g, []string{"sum", "avg"}) + "(" + c.name + ")", false, true
			}
		case k == 6:
			if c, ok := col(ints...); ok {
				return TFloat, "avg(" + c.name + ")", false, true
			}
		case k == 7:
			types := []Type{TInt, TI16, TI32, TText}
			if total {
				types = allTypes
			}
			if c, ok := col(types...); ok && c.typ != TBool {
				return c.typ, pick(g, []string{"min", "max"}) + "(" + c.name + ")", false, true
			}
		case k == 12:
			if t, call, raises, framed, ok := g.winAggCall(col, total); ok { // genwinagg.go
				return t, call, raises, framed
			}
		case !total:
			continue // the rest need a total order
		case k == 8:
			return TInt, "row_number()", false, false
		case k == 9:
			if c, ok := col(allTypes...); ok {
				f := pick(g, []string{"lag", "lead"})
				switch x := g.n(3); {
				case x == 0:
					return c.typ, f + "(" + c.name + ")", false, false
				case x == 1 || !(c.typ == TInt || c.typ == TFloat || c.typ == TText || c.typ == TBool):
					return c.typ, fmt.Sprintf("%s(%s, %d)", f, c.name, g.between(0, 3)), false, false
				default:
					return c.typ, fmt.Sprintf("%s(%s, %d, %s)", f, c.name, g.between(1, 3), g.literal(c.typ).SQL()), false, false
				}
			}
		case k == 10:
			if c, ok := col(allTypes...); ok {
				switch g.n(3) {
				case 0:
					return c.typ, "first_value(" + c.name + ")", false, true
				case 1:
					return c.typ, "last_value(" + c.name + ")", false, true
				}
				return c.typ, fmt.Sprintf("nth_value(%s, %d)", c.name, g.between(1, 3)), false, true
			}
		default:
			if g.p(0.5) {
				return TI32, fmt.Sprintf("ntile(%d)", g.between(1, 5)), false, false
			}
			if c, ok := col(TFloat); ok {
				return TFloat, pick(g, []string{"sum", "avg"}) + "(" + c.name + ")", false, true
			}
		}
	}
	return -1, "", false, false
}

// frame draws a frame clause: ROWS with offsets under a total order,
// RANGE with offsets over one integer key, else bounds without offsets.
func (g *Gen) frame(total, rangeKey bool) string {
	off := func() int { return g.between(0, 3) }
	switch {
	case total && g.p(0.6):
		start := pick(g, []string{"UNBOUNDED PRECEDING", fmt.Sprintf("%d PRECEDING", off()), "CURRENT ROW", fmt.Sprintf("%d FOLLOWING", off())})
		var ends []string
		switch {
		case strings.HasSuffix(start, "FOLLOWING"):
			ends = []string{fmt.Sprintf("%d FOLLOWING", off()+3), "UNBOUNDED FOLLOWING"}
		case start == "CURRENT ROW":
			ends = []string{"CURRENT ROW", fmt.Sprintf("%d FOLLOWING", off()), "UNBOUNDED FOLLOWING"}
		default:
			ends = []string{fmt.Sprintf("%d PRECEDING", off()), "CURRENT ROW", fmt.Sprintf("%d FOLLOWING", off()), "UNBOUNDED FOLLOWING"}
		}
		return "ROWS BETWEEN " + start + " AND " + pick(g, ends)
	case rangeKey && g.p(0.7):
		return fmt.Sprintf("RANGE BETWEEN %d PRECEDING AND %d FOLLOWING", off(), off())
	}
	return pick(g, []string{"RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING", "RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING", "RANGE UNBOUNDED PRECEDING"})
}
