package difftest

// Issue 26's shapes: decimal and exponent constants, which PostgreSQL
// types numeric (1.50 is numeric(3,2), 1e3 is 1000, 1.5e2 is 150), and
// the NULL-constant folding PostgreSQL's planner does (a strict operator
// with a NULL constant operand is NULL and its other operands are never
// evaluated; NULL IN (...) is NULL; a HAVING that folds to FALSE or NULL
// runs no aggregate). They are drawn by literalExpr (hooked into Gen.expr)
// and constHaving (hooked into the grouped query's HAVING), rendered by
// the existing ops ("lit", "cast", "cmp", "in").
//
// A decimal constant is only drawn where its type cannot make the two
// sides print differently: cast to an integer type, double precision,
// text or NUMERIC(8,2), or compared with a number (a bare 1.5 beside a
// bigint compares as numeric on both sides). A bare decimal constant as a
// value of its own would be a numeric of its own scale, which the other
// numerics (NUMERIC(8,2)) would meet at a per-value scale in PostgreSQL.

// decimalPool are decimal and exponent constants: scales kept and dropped
// by the exponent, halves (numeric rounds them away from zero), values at
// and beyond the integer types' edges, more digits than a double holds,
// and beyond a double's range (1e400, 1e-400: out of range as double
// precision, a value as numeric).
var decimalPool = []string{
	"1.50", "0.5", "-0.5", "2.5", "-2.5", "1e3", "1.5e2", "1.50e1", "1e-3", "12345.678e-2",
	"0.0", "-0.0", "1e0", "2147483647.4", "2147483647.5", "-2147483648.5", "32767.5", "-32768.49",
	"9223372036854775807.0", "9223372036854775807.5", "1e18", "1e19", "-1e19",
	"12345678901234567890.123", "0.1", "0.30000000000000004", "1e300", "1e-300", "1e400", "1e-400",
	"123456.789", "1e5", "99999.995", "-99999.995",
}

// decimalLit is a bare decimal or exponent constant.
func (g *Gen) decimalLit() *Expr {
	return &Expr{Op: "lit", Type: TNumeric, Text: pick(g, decimalPool)}
}

// literalExpr draws one of issue 26's shapes of type t, or nil.
func (g *Gen) literalExpr(s scope, t Type, depth int, safe bool) *Expr {
	sub := func(t Type, safe bool) *Expr { return g.expr(s, t, depth-1, safe) }
	castOf := func(to string) *Expr {
		// Out of range raises in both (while planning: a constant).
		return &Expr{Op: "cast", Type: t, Text: to, Args: []*Expr{g.decimalLit()}, Raises: true}
	}
	switch t {
	case TInt:
		if safe {
			return nil
		}
		return castOf("BIGINT")
	case TI32:
		if safe {
			return nil
		}
		return castOf("INTEGER")
	case TI16:
		if safe {
			return nil
		}
		return castOf("SMALLINT")
	case TFloat:
		if safe {
			return nil
		}
		return castOf("DOUBLE PRECISION")
	case TNumeric:
		if safe {
			return nil
		}
		return castOf("NUMERIC(8,2)")
	case TText:
		e := castOf("TEXT")
		e.Raises = false
		return e
	case TBool:
		switch g.n(5) {
		case 4:
			return g.droppedWide(s, depth) // genpostpone.go
		case 0:
			// A number compared with a decimal constant: numeric beside
			// an integer or numeric, double precision beside a float.
			ct := pick(g, []Type{TInt, TI16, TI32, TNumeric, TFloat, TF32})
			x := sub(ct, true)
			args := []*Expr{x, g.decimalLit()}
			if g.p(0.5) {
				args[0], args[1] = args[1], args[0]
			}
			return &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"=", "<>", "<", "<=", ">", ">="}), Args: args}
		case 1, 2:
			// A NULL constant beside an operand that may raise: the
			// comparison folds to NULL in PostgreSQL, which never
			// evaluates the other operand.
			ct := pick(g, []Type{TInt, TI16, TI32, TFloat, TNumeric, TText, TDate})
			null := &Expr{Op: "lit", Type: ct, Text: "CAST(NULL AS " + ct.SQL() + ")"}
			args := []*Expr{sub(ct, false), null}
			if g.p(0.5) {
				args[0], args[1] = args[1], args[0]
			}
			return &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"=", "<>", "<", ">="}), Args: args}
		case 3:
			// NULL [NOT] IN (operands that may raise): NULL.
			it := pick(g, []Type{TInt, TI32, TFloat, TText})
			args := []*Expr{{Op: "lit", Type: it, Text: "CAST(NULL AS " + it.SQL() + ")"}}
			for i, n := 0, g.between(1, 3); i < n; i++ {
				args = append(args, sub(it, false))
			}
			return &Expr{Op: pick(g, []string{"in", "notin"}), Type: TBool, Args: args}
		}
	}
	return nil
}

// constHaving is a HAVING that PostgreSQL folds to FALSE or NULL: no
// group is returned, and no aggregate is evaluated (one that would raise
// must not).
func (g *Gen) constHaving() *Expr {
	t := pick(g, []Type{TInt, TText, TFloat})
	null := &Expr{Op: "lit", Type: t, Text: "CAST(NULL AS " + t.SQL() + ")"}
	switch g.n(3) {
	case 0:
		return &Expr{Op: "isnotnull", Type: TBool, Args: []*Expr{null}}
	case 1:
		return &Expr{Op: "lit", Type: TBool, Text: "FALSE"}
	}
	return &Expr{Op: "cmp", Type: TBool, Text: "=", Args: []*Expr{null, null}}
}
