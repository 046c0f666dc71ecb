package difftest

import "strconv"

// Grouped, DISTINCT and set-operation queries. Their rows come out in no
// defined order unless OrderAll asks for ORDER BY every column by
// position; LIMIT and OFFSET only then.
//
// What the generator leaves out, and why:
//   - sum and avg of double precision: the result depends on the order the
//     rows are added in, which is not defined (PostgreSQL may sort for a
//     GroupAggregate, and its sort is not stable); their PostgreSQL
//     semantics (float8pl, float8_accum overflow rules) are pinned by
//     exec's unit tests instead.
//   - string_agg: its result order is not defined without ORDER BY inside
//     the call, which stablerow does not lower.

// orderAll makes q's order defined (sometimes) and cuts it (sometimes).
func (g *Gen) orderAll(q *Query) {
	q.Tiebreak, q.OrderBy = nil, nil
	if !g.p(0.6) {
		return
	}
	q.OrderAll = true
	if g.p(0.3) {
		q.Limit = int64(g.between(0, 4))
	}
	if g.p(0.2) {
		q.Offset = int64(g.between(0, 3))
	}
}

// grouped makes q SELECT keys..., aggregates... GROUP BY keys [HAVING].
func (g *Gen) grouped(q *Query, s scope) {
	var keys []*Expr
	for i, n := 0, g.between(0, 2); i < n; i++ {
		e := g.leaf(s, g.typ())
		if g.p(0.3) {
			e = g.expr(s, g.typ(), 1, false)
		}
		q.Select = append(q.Select, e)
		keys = append(keys, e)
		// By position or by the expression itself (a bare constant is not
		// a GROUP BY expression in PostgreSQL: by position then).
		if e.Op == "lit" || g.p(0.4) {
			q.GroupBy = append(q.GroupBy, strconv.Itoa(len(q.Select)))
		} else {
			q.GroupBy = append(q.GroupBy, e.SQL())
		}
	}
	keys = g.duplicateKey(q, keys) // gendupkeys.go
	for i, n := 0, g.between(1, 3); i < n; i++ {
		q.Select = append(q.Select, g.withFilter(g.aggregate(s), s)) // gengrouping.go
	}
	if g.p(0.15) {
		q.Select = append(q.Select, g.orderedSet(s)) // gengrouping.go
	}
	if g.p(0.3) {
		a := g.withFilter(g.aggregate(s), s)
		q.Having = &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"=", "<>", "<", "<=", ">", ">="}),
			Args: []*Expr{a, g.literal(a.Type)}, Raises: a.Raises}
	} else if g.p(0.08) {
		q.Having = g.constHaving() // genliterals.go
	}
	g.groupingSets(q, keys) // gengrouping.go
	g.orderAll(q)
	unorderEqualKeys(q) // gendupkeys.go
}

// aggregate draws an aggregate call over s.
func (g *Gen) aggregate(s scope) *Expr {
	arg := func(t Type) *Expr { return g.expr(s, t, 1, false) }
	mk := func(op, name string, t Type, raises bool, args ...*Expr) *Expr {
		for _, a := range args {
			raises = raises || a.Raises
		}
		return &Expr{Op: op, Type: t, Text: name, Args: args, Raises: raises}
	}
	switch g.n(10) {
	case 0:
		return mk("agg", "count", TInt, false)
	case 1:
		return mk("agg", "count", TInt, false, arg(g.typ()))
	case 2:
		return mk("aggdistinct", "count", TInt, false, arg(g.typ()))
	case 3, 4:
		// PostgreSQL's sum(bigint) is numeric; stablerow's bigint raises
		// where the total leaves bigint (a known divergence). sum of
		// smallint and integer is bigint in both; sum of numeric is
		// numeric in the argument's scale.
		op := pick(g, []string{"agg", "aggdistinct"})
		if g.p(0.25) {
			return mk(op, "sum", TNumeric, true, arg(TNumeric))
		}
		return mk(op, "sum", TInt, true, arg(pick(g, []Type{TInt, TI16, TI32})))
	case 5:
		// One draw shares the slot: 3 in 10 a statistical aggregate, 3 in
		// 10 avg(numeric), as often as before the statistical ones came.
		switch u := g.between(0, 9); {
		case u < 3:
			return g.statsAggregate(s) // genstddev.go
		case u < 6:
			// avg(numeric) is numeric: sum / count at PostgreSQL's per-value
			// scale, here padded to numeric(38, 20) (normalization 8).
			return mk("agg", "avg", TNumeric, false, arg(TNumeric))
		}
		return mk("agg", "avg", TFloat, false, arg(pick(g, []Type{TInt, TI16, TI32})))
	case 6, 7:
		t := g.typ()
		return mk("agg", pick(g, []string{"min", "max"}), t, false, arg(t))
	default:
		return mk("agg", pick(g, []string{"bool_and", "bool_or"}), TBool, false, arg(TBool))
	}
}

// distinct makes q SELECT DISTINCT.
func (g *Gen) distinct(q *Query, s scope) {
	q.Distinct = true
	for i, n := 0, g.between(1, 3); i < n; i++ {
		q.Select = append(q.Select, g.expr(s, g.typ(), 2, false))
	}
	g.orderAll(q)
}

// setOp makes q (SELECT ... FROM its FROM) UNION/INTERSECT/EXCEPT [ALL] a
// second query of the same column types over a FROM of its own.
func (g *Gen) setOp(q *Query, s scope, ts []*Table) {
	var types []Type
	for i, n := 0, g.between(1, 3); i < n; i++ {
		t := g.typ()
		// A numeric column whose two sides may differ in scale (a product
		// has the sum of its operands' scales) meets at a numeric of no
		// fixed scale in PostgreSQL, which stablerow refuses (a decimal
		// column has one scale): sql/setop.go. Not drawn here;
		// testdata/sql/setop.slt pins the refusal.
		for t == TNumeric {
			t = g.typ()
		}
		types = append(types, t)
		q.Select = append(q.Select, g.expr(s, t, 2, false))
	}
	r := &Query{Limit: -1, Offset: -1}
	rs, safe := g.fromClause(r, ts)
	r.Tiebreak = nil
	if g.p(0.5) {
		r.Where = g.expr(rs, TBool, 2, safe)
	}
	for _, t := range types {
		r.Select = append(r.Select, g.expr(rs, t, 2, false))
	}
	q.Set = &SetQuery{Op: pick(g, []string{"UNION", "INTERSECT", "EXCEPT"}), All: g.p(0.5), Right: r}
	g.orderAll(q)
}
