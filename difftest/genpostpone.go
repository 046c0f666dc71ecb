package difftest

// Issue 26's last two divergence kinds, drawn so that the generator
// keeps finding them:
//
//   - Where PostgreSQL evaluates a select list under LIMIT. Its Limit
//     pulls one row at a time, and an ORDER BY ... LIMIT postpones an
//     item that is not a sort key and costs more than 10 operator calls
//     past the sort (make_sort_input_target): such an item is evaluated
//     on the rows the LIMIT reads only, a cheaper one on every row. With
//     FROM one UNNEST ... WITH ORDINALITY ordered by the ordinality
//     column (constant keys drop out) PostgreSQL sorts nothing, and every
//     item is evaluated on the rows the LIMIT reads (seed 20261206 case
//     50198). costlyItem draws a chain of 9 to 13 operator calls, on
//     either side of the threshold, that may overflow; ordinalityOrder
//     draws the unsorted shape. Both are hooked into Gen.query.
//   - A constant beyond double precision (1e400) compared with a float
//     where PostgreSQL's constant folding drops it before it converts it:
//     a CASE arm after a FALSE or NULL condition, a COALESCE argument
//     after a non-NULL constant (cases 61484, 155710). droppedWide draws
//     them, from literalExpr.

// costlyItem is a bigint select item of 9 to 13 operator calls over the
// scope's bigint columns: v * 2 + c - 3 * ... that overflows on large
// values (it Raises).
func (g *Gen) costlyItem(s scope) *Expr {
	ints := s.ofType(TInt)
	if len(ints) == 0 {
		return nil
	}
	col := func() *Expr { c := pick(g, ints); return &Expr{Op: "col", Type: TInt, Text: c.name} }
	e := col()
	for i, n := 0, g.between(9, 13); i < n; i++ {
		var arg *Expr
		if g.p(0.5) {
			arg = col()
		} else {
			arg = &Expr{Op: "lit", Type: TInt, Text: pick(g, []string{"2", "3", "1000", "4611686018427387904", "9223372036854775807"})}
		}
		e = &Expr{Op: "bin", Type: TInt, Text: pick(g, []string{"+", "-", "*"}), Args: []*Expr{e, arg}, Raises: true}
	}
	return e
}

// ordinalityOrder makes q, over a lone UNNEST ... WITH ORDINALITY, ordered
// by a constant and the ordinality column (its tiebreak) only, with a
// LIMIT: PostgreSQL reads the function's rows in order and sorts nothing.
func (g *Gen) ordinalityOrder(q *Query) {
	one := &Expr{Op: "lit", Type: TInt, Text: "1"}
	k := pick(g, []*Expr{
		{Op: "cast", Type: TF32, Text: "REAL", Args: []*Expr{{Op: "lit", Type: TText, Text: "'Infinity'"}}},
		{Op: "cast", Type: TInt, Text: "BIGINT", Args: []*Expr{one}},
	})
	q.OrderBy = []Order{{E: k, Desc: g.p(0.3)}}
	q.Limit = int64(g.between(0, 3))
	if g.p(0.3) {
		q.Offset = int64(g.between(0, 2))
	}
}

// droppedWide is a boolean holding a comparison of a float with a
// constant beyond double precision that PostgreSQL's folding drops.
func (g *Gen) droppedWide(s scope, depth int) *Expr {
	ft := pick(g, []Type{TFloat, TF32})
	wide := &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"<=", ">=", "<>"}),
		Args: []*Expr{g.expr(s, ft, depth-1, true), {Op: "lit", Type: TNumeric, Text: pick(g, []string{"1e400", "-1e400", "1e-400"})}}}
	if g.p(0.5) {
		wide.Args[0], wide.Args[1] = wide.Args[1], wide.Args[0]
	}
	other := g.expr(s, TBool, depth-1, true)
	if g.p(0.5) {
		// coalesce(TRUE, x, wide): the constant ends the list.
		c := &Expr{Op: "lit", Type: TBool, Text: pick(g, []string{"TRUE", "FALSE"})}
		return &Expr{Op: "coalesce", Type: TBool, Args: []*Expr{c, other, wide}}
	}
	// CASE WHEN FALSE THEN wide WHEN x THEN ... : the arm drops out.
	cond := pick(g, []*Expr{
		{Op: "lit", Type: TBool, Text: "FALSE"},
		{Op: "lit", Type: TBool, Text: "CAST(NULL AS BOOLEAN)"},
		{Op: "cmp", Type: TBool, Text: "<", Args: []*Expr{g.leaf(s, TI16), {Op: "lit", Type: TI16, Text: "CAST(NULL AS SMALLINT)"}}},
	})
	return &Expr{Op: "case", Type: TBool, Text: "else", Args: []*Expr{cond, wide, other}}
}
