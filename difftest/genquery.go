package difftest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// scopeCol is a column a query's expressions can name.
type scopeCol struct {
	name string // qualified: a.c0
	typ  Type
}

type scope []scopeCol

func (s scope) ofType(t Type) []scopeCol {
	var out []scopeCol
	for _, c := range s {
		if c.typ == t {
			out = append(out, c)
		}
	}
	return out
}

func tableScope(t *Table, alias string) scope {
	var s scope
	for _, c := range t.Cols {
		s = append(s, scopeCol{alias + "." + c.Name, c.Type})
	}
	return s
}

// Case draws one case.
func (g *Gen) Case() *Case {
	c := &Case{Tables: g.Tables()}
	g.withStringColumns(c.Tables)
	for _, t := range c.Tables {
		if g.p(0.15) {
			sql, es := g.insertSelect(t)
			c.DML, c.DMLExprs = append(c.DML, sql), append(c.DMLExprs, es)
		}
		if len(t.Rows) == 0 || !g.p(0.2) {
			continue
		}
		s := tableScope(t, t.Name)
		if g.p(0.5) {
			w := g.expr(s, TBool, 2, true)
			c.DML, c.DMLExprs = append(c.DML, "DELETE FROM "+t.Name+" WHERE "+w.SQL()), append(c.DMLExprs, []*Expr{w})
		} else {
			col := t.Cols[1+g.n(len(t.Cols)-1)]
			// The new value may raise: then both sides must fail the
			// whole statement and keep the table as it was.
			v, w := g.expr(s, col.Type, 2, false), g.expr(s, TBool, 1, true)
			c.DML = append(c.DML, "UPDATE "+t.Name+" SET "+col.Name+" = "+v.SQL()+" WHERE "+w.SQL())
			c.DMLExprs = append(c.DMLExprs, []*Expr{v, w})
		}
	}
	c.Query = g.query(c.Tables)
	return c
}

// insertSelect is INSERT INTO t SELECT ... FROM generate_series: values
// computed by expressions (which may raise: then both sides must fail the
// statement), bare NULLs whose type the target column gives, and keys far
// from the generated ones so k stays unique.
func (g *Gen) insertSelect(t *Table) (string, []*Expr) {
	s := scope{{"g.g", TInt}}
	items := []string{"(g.g + CAST(1000000007 AS BIGINT))"}
	var es []*Expr
	for _, c := range t.Cols[1:] {
		if g.p(0.2) {
			items = append(items, "NULL")
			continue
		}
		e := g.expr(s, c.Type, 2, false)
		items, es = append(items, e.SQL()), append(es, e)
	}
	return fmt.Sprintf("INSERT INTO %s SELECT %s FROM generate_series(%d, %d) AS g(g)",
		t.Name, strings.Join(items, ", "), g.between(-2, 2), g.between(-2, 4)), es
}

func (g *Gen) query(ts []*Table) *Query {
	if q := g.charProbe(ts); q != nil {
		return q
	}
	q := &Query{Limit: -1, Offset: -1}
	s, safeWhere := g.fromClause(q, ts)
	if g.p(0.6) {
		q.Where = g.expr(s, TBool, 3, safeWhere)
	}
	g.charConjunct(q, s)
	if g.p(0.3) && (q.Where == nil || !q.Where.Raises) {
		// A subquery predicate, as a top-level conjunct of WHERE; not
		// next to a conjunct that may raise: the order PostgreSQL
		// evaluates them in is not defined (nor is ours: the subquery's
		// join runs first).
		sp := g.subPredicate(ts, s)
		if g.p(0.3) {
			sp = g.subqueryConjunct(ts, s) // gensubquery_positions.go
		}
		if q.Where != nil {
			sp = &Expr{Op: "and", Type: TBool, Args: []*Expr{sp, q.Where}}
		}
		q.Where = sp
	}
	switch k := g.n(20); {
	case k < 5:
		g.grouped(q, s)
		g.addHavingSubquery(q, s, ts) // genhavingsub.go
		g.sub28cGrouped(q, s, ts)     // gen_sub28c.go
		return q
	case k < 7:
		g.setOp(q, s, ts)
		return q
	case k < 8:
		g.distinct(q, s)
		return q
	case k < 9:
		g.distinctOn(q, s) // gendistincton.go
		return q
	}
	if g.p(0.15) {
		q.Count = true
		if g.p(0.6) {
			q.Select = []*Expr{g.expr(s, g.typ(), 2, false)}
		}
		return q
	}
	for i, n := 0, g.between(1, 4); i < n; i++ {
		q.Select = append(q.Select, g.expr(s, g.typ(), 3, false))
	}
	if g.p(0.15) {
		q.Select = append(q.Select, g.numericQuotient(s))
	}
	if g.p(0.15) {
		q.Select = append(q.Select, g.scalarSub(ts, s))
	}
	if g.p(0.15) {
		q.Select = append(q.Select, g.subqueryValue(ts, s)) // gensubquery_positions.go
	}
	if g.p(0.15) { // genwindow.go
		if w := g.windowFunc(s, q.Tiebreak); w != nil {
			q.Select = append(q.Select, w)
		}
	}
	if g.p(0.6) {
		for i, n := 0, g.between(1, 2); i < n; i++ {
			o := Order{E: g.expr(s, g.typ(), 2, false), Desc: g.p(0.4)}
			// A bare literal is refused in ORDER BY by both sides
			// (PostgreSQL: non-integer constant): a wasted case.
			for try := 0; o.E.Op == "lit" && try < 5; try++ {
				o.E = g.expr(s, g.typ(), 2, false)
			}
			if o.E.Op == "lit" {
				continue
			}
			if g.p(0.3) {
				o.Nulls = pick(g, []string{"FIRST", "LAST"})
			}
			q.OrderBy = append(q.OrderBy, o)
		}
		// LIMIT and OFFSET only under a total order: else the rows
		// they keep are any.
		if g.p(0.4) && len(q.OrderBy) > 0 {
			q.Limit = int64(g.between(0, 6))
		}
		if g.p(0.3) && len(q.OrderBy) > 0 {
			q.Offset = int64(g.between(0, 4))
		}
	}
	// Where PostgreSQL evaluates the select list under LIMIT
	// (genpostpone.go).
	if q.From.Kind == FromUnnest && q.From.T1 == "" && g.p(0.2) {
		g.ordinalityOrder(q)
	}
	if q.Limit >= 0 && g.p(0.3) {
		if e := g.costlyItem(s); e != nil {
			q.Select = append(q.Select, e)
		}
	}
	return q
}

// fromClause draws q's FROM clause and its tiebreak keys: the scope its
// expressions see, and whether WHERE must not raise (joins: PostgreSQL may
// push it below the join).
func (g *Gen) fromClause(q *Query, ts []*Table) (scope, bool) {
	t0 := pick(g, ts)
	var s scope
	safeWhere := false
	switch k := g.n(10); {
	case k < 5:
		q.From = From{Kind: FromTable, T0: t0.Name}
		s = tableScope(t0, "a")
		q.Tiebreak = []string{"a.k"}
	case k < 7 && g.p(0.25):
		return g.manyJoin(q, ts), true
	case k < 7 && g.p(0.15):
		return g.lateralFrom(q, ts) // genlateral.go
	case k < 7 && g.p(0.1):
		return g.lateralFnFrom(q, ts) // genlateralfn.go
	case k < 7 && g.p(0.08):
		return g.seriesTypesFrom(q, ts) // gen_gen28.go
	case k < 7:
		t1 := pick(g, ts)
		q.From = From{Kind: FromJoin, T0: t0.Name, T1: t1.Name,
			Join: pick(g, []string{"", "", "LEFT", "LEFT", "RIGHT", "FULL", "CROSS", "LIST", "LIST"})}
		s = append(tableScope(t0, "a"), tableScope(t1, "b")...)
		// ON a.x = b.y over columns of one type: keys, or any pair.
		l, r := "a.k", "b.k"
		if g.p(0.6) {
			// Hash join keys: not date or timestamp (genchar.go).
			l, r = g.joinKeys(tableScope(t0, "a"), tableScope(t1, "b"), l, r)
		}
		q.From.On = [2]string{l, r}
		if g.p(0.25) && q.From.Join != "FULL" {
			// No equality between the inputs: a nested loop join.
			// (PostgreSQL runs a FULL JOIN only on an equality: 0A000.)
			q.From.OnOp = pick(g, []string{"<", "<=", ">", "<>"})
		}
		if g.p(0.3) {
			// A further conjunct over either side or both (a residual,
			// or a filter of one input); it cannot raise.
			q.From.OnAnd = g.expr(s, TBool, 2, true)
		}
		g.onSubquery(q, ts, t0, t1) // genonsub.go
		if q.From.Join == "LIST" && g.p(0.5) {
			// FROM a, b WHERE: an OR of conjunctions over each side
			// (TPC-H Q7, Q19), from which the join order derives a
			// filter on each side (sql/joinorder.go).
			sa, sb := tableScope(t0, "a"), tableScope(t1, "b")
			branch := func() *Expr {
				return &Expr{Op: "and", Type: TBool, Args: []*Expr{g.expr(sa, TBool, 1, true), g.expr(sb, TBool, 1, true)}}
			}
			or := &Expr{Op: "or", Type: TBool, Args: []*Expr{branch(), branch()}}
			if q.From.OnAnd != nil {
				or = &Expr{Op: "and", Type: TBool, Args: []*Expr{q.From.OnAnd, or}}
			}
			q.From.OnAnd = or
		}
		q.Tiebreak = []string{"a.k", "b.k"}
		safeWhere = true
		if g.p(0.2) {
			s = g.usingJoin(q, t0, t1, s) // genusing.go
		}
		if t0.Name == t1.Name && g.p(0.5) {
			// A self join through a CTE read twice: the shared subplan.
			c := &CTE{Name: "c_" + t0.Name, Table: t0.Name}
			if g.p(0.6) {
				c.Where = g.expr(tableScope(t0, "a"), TBool, 2, true)
			}
			valuesCTE(c, t0) // genvalues.go
			q.CTE, q.From.T0, q.From.T1 = c, c.Name, c.Name
		}
	case k < 9:
		q.From = From{Kind: FromUnnest}
		for i, n := 0, g.between(0, 6); i < n; i++ {
			if g.p(0.15) {
				q.From.Array = append(q.From.Array, "NULL")
				continue
			}
			v := int64(g.between(-2, 12))
			if g.p(0.3) {
				// Not MinInt64: PostgreSQL reads -9223372036854775808 as
				// numeric (the lexer sees 9223372036854775808, beyond
				// bigint), which makes the whole array numeric[].
				if v = g.intValue(); v == math.MinInt64 {
					v++
				}
			}
			q.From.Array = append(q.From.Array, strconv.FormatInt(v, 10))
		}
		if !slices.ContainsFunc(q.From.Array, func(x string) bool { return x != "NULL" }) {
			// PostgreSQL types ARRAY[] and ARRAY[NULL] as text[] or not
			// at all: one integer element at least makes it an integer
			// array.
			q.From.Array = append(q.From.Array, "1")
		}
		s = scope{{"v.x", TInt}, {"v.o", TInt}}
		q.Tiebreak = []string{"v.o"}
		if g.p(0.7) {
			q.From.T1, q.From.Left = t0.Name, g.p(0.8)
			s = append(s, tableScope(t0, "a")...)
			q.Tiebreak = append(q.Tiebreak, "a.k")
			safeWhere = true
		}
	default:
		q.From = From{Kind: FromSeries, Lo: int64(g.between(-3, 5)), Hi: int64(g.between(-3, 12))}
		if g.p(0.3) {
			q.From.Step = pick(g, []int64{1, 2, 3, -1, -2})
		}
		s = scope{{"g.g", TInt}}
		q.Tiebreak = []string{"g.g"}
		if g.p(0.6) {
			q.From.T1, q.From.Left = t0.Name, g.p(0.3)
			s = append(s, tableScope(t0, "a")...)
			q.Tiebreak = append(q.Tiebreak, "a.k")
			safeWhere = true
		}
	}
	return s, safeWhere
}

// expr draws an expression of type t over scope s, at most depth levels
// deep; safe asks for one that cannot raise.
func (g *Gen) expr(s scope, t Type, depth int, safe bool) *Expr {
	if depth <= 0 || g.p(0.3) {
		return g.leaf(s, t)
	}
	if g.p(0.3) { // issue 18's scalar expressions (genexprs.go)
		if e := g.scalarExpr(s, t, depth, safe); e != nil {
			return e
		}
	}
	if g.p(0.06) { // issue 26's decimal constants and NULL folding (genliterals.go)
		if e := g.literalExpr(s, t, depth, safe); e != nil {
			return e
		}
	}
	mk := func(op, text string, raises bool, args ...*Expr) *Expr {
		for _, a := range args {
			raises = raises || a.Raises
		}
		return &Expr{Op: op, Type: t, Text: text, Args: args, Raises: raises}
	}
	sub := func(t Type) *Expr { return g.expr(s, t, depth-1, safe) }
	switch t {
	case TInt:
		switch g.n(4) {
		case 0, 1:
			if safe {
				break
			}
			return mk("bin", pick(g, []string{"+", "-", "*", "/", "%"}), true, sub(TInt), sub(TInt))
		case 2:
			if safe {
				break
			}
			return mk("neg", "", true, sub(TInt))
		case 3:
			if safe {
				break
			}
			// float8 -> bigint rounds half to even and fails out of
			// range; text -> bigint fails on non-integers.
			return mk("cast", "BIGINT", true, sub(pick(g, []Type{TFloat, TFloat, TText})))
		}
	case TFloat:
		switch g.n(4) {
		case 0, 1:
			if safe {
				break
			}
			// PostgreSQL raises on float overflow and division by zero.
			return mk("bin", pick(g, []string{"+", "-", "*", "/"}), true, sub(TFloat), sub(pick(g, []Type{TFloat, TInt})))
		case 2:
			return mk("neg", "", false, sub(TFloat))
		case 3:
			if g.p(0.8) {
				return mk("cast", "DOUBLE PRECISION", false, sub(TInt))
			}
			if !safe {
				return mk("cast", "DOUBLE PRECISION", true, sub(TText))
			}
		}
	case TText:
		return mk("cast", "TEXT", false, sub(pick(g, []Type{TInt, TFloat, TBool, TI16, TI32, TF32, TChar, TVarchar, TDate, TTimestamp, TNumeric})))
	case TNumeric:
		if !safe && g.p(0.6) {
			switch g.n(3) {
			case 0:
				// An integer into numeric(8,2) overflows past 10^6.
				return mk("cast", "NUMERIC(8,2)", true, sub(pick(g, []Type{TI16, TI32})))
			case 1:
				return mk("neg", "", false, sub(TNumeric))
			}
			// Exact + - *: the larger scale, the sum of the scales.
			l, r := sub(TNumeric), sub(pick(g, []Type{TNumeric, TNumeric, TI16, TI32}))
			if g.p(0.5) {
				l, r = r, l
			}
			return mk("bin", pick(g, []string{"+", "-", "*"}), true, l, r)
		}
	case TI16:
		if !safe && g.p(0.6) {
			// smallint op smallint is smallint, with its own overflow.
			if g.p(0.8) {
				return mk("bin", pick(g, []string{"+", "-", "*", "/", "%"}), true, sub(TI16), sub(TI16))
			}
			return mk("neg", "", true, sub(TI16))
		}
	case TI32:
		if !safe && g.p(0.6) {
			switch g.n(4) {
			case 0:
				// date - date is the integer number of days.
				return mk("bin", "-", false, sub(TDate), sub(TDate))
			case 1:
				return mk("neg", "", true, sub(TI32))
			}
			l, r := sub(TI32), sub(pick(g, []Type{TI32, TI16}))
			if g.p(0.5) {
				l, r = r, l
			}
			return mk("bin", pick(g, []string{"+", "-", "*", "/", "%"}), true, l, r)
		}
	case TF32:
		if !safe && g.p(0.5) {
			return mk("bin", pick(g, []string{"+", "-", "*", "/"}), true, sub(TF32), sub(TF32))
		}
	case TDate:
		if !safe && g.p(0.5) {
			if g.p(0.3) {
				return mk("bin", "+", true, sub(pick(g, []Type{TI32, TI16})), sub(TDate))
			}
			return mk("bin", pick(g, []string{"+", "-"}), true, sub(TDate), sub(pick(g, []Type{TI32, TI16})))
		}
		if g.p(0.2) {
			return mk("cast", "DATE", false, sub(TTimestamp))
		}
	case TTimestamp:
		if g.p(0.3) {
			return mk("cast", "TIMESTAMP", false, sub(TDate))
		}
	case TBool:
		switch g.n(7) {
		case 6:
			// BETWEEN is lo <= x AND x <= hi in PostgreSQL: an AND, so
			// its operands never raise.
			bt := g.typ()
			return mk(pick(g, []string{"between", "notbetween"}), "", false,
				g.expr(s, bt, depth-1, true), g.expr(s, bt, depth-1, true), g.expr(s, bt, depth-1, true))
		case 0, 1:
			ct := g.typ()
			r := ct
			switch {
			case ct == TInt && g.p(0.3):
				r = TFloat
			case ct == TNumeric && g.p(0.4):
				r = pick(g, []Type{TInt, TI16, TI32}) // the common numeric
			case ct.numeric() && ct != TNumeric && g.p(0.4):
				r = pick(g, []Type{TInt, TFloat, TI16, TI32, TF32}) // promoted
			case ct.stringy() && g.p(0.4):
				r = pick(g, []Type{TText, TVarchar, TChar}) // compared as text
			case ct == TDate && g.p(0.4):
				r = TTimestamp // the date's midnight
			}
			return mk("cmp", pick(g, []string{"=", "<>", "<", "<=", ">", ">="}), false, sub(ct), sub(r))
		case 2:
			// AND/OR operands never raise: PostgreSQL may skip one.
			op := pick(g, []string{"and", "or"})
			return mk(op, "", false, g.expr(s, TBool, depth-1, true), g.expr(s, TBool, depth-1, true))
		case 3:
			return mk("not", "", false, sub(TBool))
		case 4:
			return mk(pick(g, []string{"isnull", "isnotnull"}), "", false, sub(g.typ()))
		case 5:
			it := g.typ()
			args := []*Expr{g.expr(s, it, depth-1, true)}
			for i, n := 0, g.between(1, 4); i < n; i++ {
				args = append(args, g.literal(it))
			}
			if long := longInList(it, args); long != nil { // a long list of constants (geninlist.go)
				args = append(args[:1], long...)
			}
			return mk(pick(g, []string{"in", "in", "notin"}), "", false, args...)
		}
	}
	return g.leaf(s, t)
}

func (g *Gen) leaf(s scope, t Type) *Expr {
	if cols := s.ofType(t); len(cols) > 0 && g.p(0.7) {
		c := pick(g, cols)
		return &Expr{Op: "col", Type: t, Text: c.name}
	}
	return g.literal(t)
}

// literal is a typed literal: integers as CAST(n AS BIGINT) and floats as
// CAST('x' AS DOUBLE PRECISION), because PostgreSQL types a bare 5 as
// integer (int4: 2000000000 + 2000000000 overflows there, not in a bigint
// engine) and a bare 1.5 as numeric (exact decimal arithmetic); stablerow
// has neither type, so the generated SQL does not ask for them.
func (g *Gen) literal(t Type) *Expr {
	e := &Expr{Op: "lit", Type: t}
	if g.p(0.08) {
		e.Text = "CAST(NULL AS " + t.SQL() + ")"
		return e
	}
	switch t {
	case TInt:
		e.Text = fmt.Sprintf("CAST(%d AS BIGINT)", g.intValue())
	case TFloat:
		e.Text = "CAST(" + quote(floatText(g.floatValue())) + " AS DOUBLE PRECISION)"
	case TText:
		e.Text = quote(pick(g, textPool))
	case TI16:
		e.Text = fmt.Sprintf("CAST(%d AS SMALLINT)", pick(g, i16Pool[:10]))
	case TI32:
		e.Text = fmt.Sprintf("CAST(%d AS INTEGER)", pick(g, i32Pool[:11]))
	case TF32:
		e.Text = "CAST(" + quote(pick(g, f32Pool[:13])) + " AS REAL)"
	case TVarchar, TChar:
		// An explicit cast cuts a longer string: both sides agree.
		e.Text = "CAST(" + quote(g.stringValue(t)) + " AS " + t.SQL() + ")"
	case TNumeric:
		e.Text = "CAST(" + quote(pick(g, numPool[:10])) + " AS NUMERIC(8,2))"
	case TDate:
		e.Text = "DATE " + quote(pick(g, datePool[:11]))
	case TTimestamp:
		e.Text = "TIMESTAMP " + quote(pick(g, tsPool[:9]))
	default:
		e.Text = pick(g, []string{"TRUE", "FALSE"})
	}
	return e
}

// subPredicate draws [NOT] EXISTS (q) or x [NOT] IN (q) over a table of
// ts (alias s), often correlated with the outer scope: an equality
// between an inner and an outer column (decorrelated into a hash semi or
// anti join), sometimes an inequality (a nested loop join), plus a local
// condition; or a comparison with a scalar subquery. Nothing in it raises.
func (g *Gen) subPredicate(ts []*Table, outer scope) *Expr {
	t := pick(g, ts)
	inner := tableScope(t, "s")
	var parts []*Expr
	corr := func(ops []string) {
		typ := g.typ()
		ic, oc := inner.ofType(typ), outer.ofType(typ)
		if len(ic) == 0 || len(oc) == 0 {
			return
		}
		i, o := &Expr{Op: "col", Type: typ, Text: pick(g, ic).name}, &Expr{Op: "col", Type: typ, Text: pick(g, oc).name}
		parts = append(parts, &Expr{Op: "cmp", Type: TBool, Text: pick(g, ops), Args: []*Expr{i, o}})
	}
	if g.p(0.6) {
		corr([]string{"="})
	}
	if g.p(0.2) {
		corr([]string{"<", ">", "<>"})
	}
	if g.p(0.5) {
		parts = append(parts, g.expr(inner, TBool, 2, true))
	}
	var where *Expr
	for _, p := range parts {
		if where == nil {
			where = p
		} else {
			where = &Expr{Op: "and", Type: TBool, Args: []*Expr{where, p}}
		}
	}
	sub := &Sub{Table: t.Name, Where: where}
	switch k := g.n(11); {
	case k >= 9:
		if c := g.correlatedAgg(ts, outer); c != nil {
			return c
		}
		return &Expr{Op: pick(g, []string{"exists", "notexists"}), Type: TBool, Sub: sub}
	case k < 2:
		return &Expr{Op: pick(g, []string{"exists", "notexists"}), Type: TBool, Sub: sub}
	case k < 8:
		typ := g.typ()
		sub.Item = g.leaf(inner, typ)
		x := g.expr(outer, typ, 1, true)
		return &Expr{Op: pick(g, []string{"insub", "notinsub", "notinsub"}), Type: TBool, Args: []*Expr{x}, Sub: sub}
	default:
		sc := g.scalarSub(ts, outer)
		return &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"=", "<", ">="}), Args: []*Expr{g.leaf(outer, sc.Type), sc}}
	}
}

// correlatedAgg compares an outer value with a correlated aggregate:
// x op (SELECT agg(e) FROM t AS s WHERE s.c = outer.d [AND s.c2 =
// outer.d2] [AND local]), sometimes inside an OR with an outer condition
// (TPC-H Q2, Q17, Q20: a ScalarSubquery expression the optimizer
// decorrelates into a grouped LEFT join whose input is restricted to the
// outer keys; optimize.Decorrelate, optimize/restrict.go). Not count,
// whose value over no rows is 0 (once refused; decorrelated with a
// coalesce now, but not drawn, so each seed's cases stay as they were), not
// sum of integers (stablerow's bigint sum raises where PostgreSQL's
// numeric does not), nothing that raises. nil when no column pair of
// one type correlates.
func (g *Gen) correlatedAgg(ts []*Table, outer scope) *Expr {
	t := pick(g, ts)
	inner := tableScope(t, "s")
	var where *Expr
	for i, n := 0, g.between(1, 2); i < n; i++ {
		typ := pick(g, []Type{TInt, TText, TI32, TI16, TVarchar, TBool})
		ic, oc := inner.ofType(typ), outer.ofType(typ)
		if len(ic) == 0 || len(oc) == 0 {
			continue
		}
		eq := &Expr{Op: "cmp", Type: TBool, Text: "=", Args: []*Expr{
			{Op: "col", Type: typ, Text: pick(g, ic).name}, {Op: "col", Type: typ, Text: pick(g, oc).name}}}
		if where == nil {
			where = eq
		} else {
			where = &Expr{Op: "and", Type: TBool, Args: []*Expr{where, eq}}
		}
	}
	if where == nil {
		return nil
	}
	if g.p(0.5) {
		where = &Expr{Op: "and", Type: TBool, Args: []*Expr{where, g.expr(inner, TBool, 2, true)}}
	}
	var agg *Expr
	for try := 0; try < 20 && agg == nil; try++ {
		a := g.aggregate(inner)
		if a.Op == "agg" && a.Text != "count" && a.Text != "sum" && !a.Raises {
			agg = a
		}
	}
	if agg == nil {
		return nil
	}
	sub := &Expr{Op: "scalar", Type: agg.Type, Sub: &Sub{Table: t.Name, Item: agg, Where: where}}
	cmp := &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"=", "<", ">=", "<>"}), Args: []*Expr{g.leaf(outer, agg.Type), sub}}
	if g.p(0.25) {
		return &Expr{Op: "or", Type: TBool, Args: []*Expr{cmp, g.expr(outer, TBool, 1, true)}}
	}
	return cmp
}

// scalarSub is (SELECT s.c FROM t AS s WHERE s.k = K): at most one row,
// since k is unique; K is often one of t's keys.
func (g *Gen) scalarSub(ts []*Table, outer scope) *Expr {
	t := pick(g, ts)
	inner := tableScope(t, "s")
	typ := g.typ()
	key := &Expr{Op: "lit", Type: TInt, Text: fmt.Sprintf("CAST(%d AS BIGINT)", g.between(-3, 12))}
	if len(t.Rows) > 0 && g.p(0.7) {
		key.Text = "CAST(" + pick(g, t.Rows)[0] + " AS BIGINT)"
	}
	w := &Expr{Op: "cmp", Type: TBool, Text: "=", Args: []*Expr{{Op: "col", Type: TInt, Text: "s.k"}, key}}
	return &Expr{Op: "scalar", Type: typ, Sub: &Sub{Table: t.Name, Item: g.leaf(inner, typ), Where: w}}
}

// numericQuotient is numeric / numeric (or / smallint, / integer, either
// way round), only as a whole select item: PostgreSQL gives each quotient
// its own scale (select_div_scale), which a later operator would carry
// (a quotient's scale feeds the next division's), while stablerow's column
// has one (numeric(38, max(s1, s2, 20))); alone in its column the two
// compare by normalization 8. A zero divisor raises in both.
func (g *Gen) numericQuotient(s scope) *Expr {
	l, r := g.expr(s, TNumeric, 2, false), g.expr(s, pick(g, []Type{TNumeric, TNumeric, TI16, TI32}), 2, false)
	if g.p(0.3) {
		l, r = r, l
	}
	return &Expr{Op: "bin", Type: TNumeric, Text: "/", Args: []*Expr{l, r}, Raises: true}
}
