package difftest

import (
	"fmt"
	"strconv"
	"strings"
)

// The scalar expressions of issue 18: CASE, COALESCE, NULLIF, IS [NOT]
// DISTINCT FROM, LIKE/ILIKE [ESCAPE], ||, and the string and math
// functions. They are drawn by scalarExpr (hooked into Gen.expr) and
// rendered by scalarSQL (hooked into Expr.SQL).
//
// Two PostgreSQL rules shape what is drawn:
//   - CASE and COALESCE evaluate an arm or argument only for the rows that
//     reach it, and both engines must agree on that; but PostgreSQL also
//     folds constant subexpressions while planning, raising an error in
//     an arm no row reaches. So no arm or argument holds a raising
//     subexpression without a column (constRaisingInside).
//   - Function argument types are PostgreSQL's: substr's positions are
//     integer (int4) literals, bare; a bigint there does not resolve.

// textPoolExpr are texts for the string functions and patterns: case
// pairs beyond ASCII (É/é, ǅ/ǆ/Ǆ, Σ/σ, ß whose upper case stays ß under a
// per-character mapping), LIKE's wildcards and escape as data.
var textPoolExpr = []string{
	"É", "é", "école", "ÉCOLE", "ß", "STRASSE", "ǅ", "ǆ", "Ǆ", "Σ", "σ", "İ", "ı",
	"a%b", "a_b", "100%", `a\b`, "_", "%", "xx", "  pad  ", "aXbXc",
}

// likePatterns never end in an escape character (that raises only when
// the matcher reaches it; patterns are literals, so both sides would
// agree, but it would mostly test the error).
var likePatterns = []string{
	"%", "_", "", "a%", "%a", "%é%", "É%", "_b%", "%\\%%", "a\\_b", "%X%", "%ß%", "ǆ", "%σ", "a!%b", "a!_b", "__", "%%%",
}

func (g *Gen) exprText() string {
	if g.p(0.5) {
		return pick(g, textPoolExpr)
	}
	return pick(g, textPool)
}

// int4Lit is a bare integer literal (PostgreSQL's integer).
func (g *Gen) int4Lit(lo, hi int) *Expr {
	return &Expr{Op: "lit", Type: TInt, Text: strconv.Itoa(g.between(lo, hi))}
}

func (g *Gen) textLit() *Expr {
	return &Expr{Op: "lit", Type: TText, Text: quote(g.exprText())}
}

// constRaisingInside: a raising subexpression without a column somewhere
// in e (PostgreSQL raises it while planning, wherever it is).
func constRaisingInside(e *Expr) bool {
	if constRaising(e) {
		return true
	}
	for _, a := range e.Args {
		if constRaisingInside(a) {
			return true
		}
	}
	return false
}

// extractFields are the fields of extract and date_part over a
// timestamp; extractDateFields those extract takes of a date.
var (
	extractFields     = []string{"year", "isoyear", "quarter", "month", "week", "day", "dow", "isodow", "doy", "hour", "minute", "second", "milliseconds", "microseconds", "epoch"}
	extractDateFields = []string{"year", "isoyear", "quarter", "month", "week", "day", "dow", "isodow", "doy", "epoch"}
)

// scalarExpr draws one of issue 18's expressions of type t, or nil.
func (g *Gen) scalarExpr(s scope, t Type, depth int, safe bool) *Expr {
	mk := func(op, text string, raises bool, args ...*Expr) *Expr {
		for _, a := range args {
			raises = raises || a.Raises
		}
		return &Expr{Op: op, Type: t, Text: text, Args: args, Raises: raises}
	}
	sub := func(t Type) *Expr { return g.expr(s, t, depth-1, safe) }
	// lazy draws an arm of CASE or COALESCE: it may raise, but not as a
	// constant.
	lazy := func(t Type) *Expr {
		for try := 0; try < 5; try++ {
			if e := g.expr(s, t, depth-1, safe); !constRaisingInside(e) {
				return e
			}
		}
		return g.leaf(s, t)
	}
	generic := -1
	if g.p(0.4) {
		generic = g.n(3)
	}
	switch generic {
	case 0: // CASE WHEN c THEN v ... [ELSE e] END
		var args []*Expr
		for i, n := 0, g.between(1, 3); i < n; i++ {
			args = append(args, lazy(TBool), lazy(t))
		}
		text := ""
		if g.p(0.6) {
			args, text = append(args, lazy(t)), "else"
		}
		return mk("case", text, false, args...)
	case 1:
		args := []*Expr{lazy(t)}
		for i, n := 0, g.between(1, 2); i < n; i++ {
			args = append(args, lazy(t))
		}
		return mk("coalesce", "", false, args...)
	case 2:
		return mk("nullif", "", false, sub(t), sub(t))
	}
	// GREATEST/LEAST (NULLs skipped). Not over numeric, char(n) or
	// varchar(n): PostgreSQL's result there is a numeric or bpchar of no
	// fixed scale or length, each value keeping its own.
	if t != TNumeric && t != TChar && t != TVarchar && g.p(0.1) {
		args := []*Expr{sub(t)}
		for i, n := 0, g.between(1, 2); i < n; i++ {
			args = append(args, sub(t))
		}
		return mk("fn", pick(g, []string{"greatest", "least"}), false, args...)
	}
	switch t {
	case TText:
		switch g.n(8) {
		case 0:
			return mk("fn", pick(g, []string{"lower", "upper"}), false, sub(TText))
		case 1:
			// substr(s, from [, count]); a negative count raises.
			args := []*Expr{sub(TText), g.int4Lit(-3, 8)}
			raises := false
			if g.p(0.7) {
				lo := 0
				if !safe && g.p(0.1) {
					lo, raises = -2, true
				}
				args = append(args, g.int4Lit(lo, 6))
			}
			name := pick(g, []string{"substr", "substring", "substring_from"})
			return mk("fn", name, raises, args...)
		case 2, 6, 7:
			side := pick(g, []string{"both", "leading", "trailing", "btrim", "ltrim", "rtrim"})
			args := []*Expr{sub(TText)}
			if g.p(0.7) {
				args = append(args, &Expr{Op: "lit", Type: TText, Text: quote(pick(g, []string{" ", "x", "é", "ǅ", "ab", "aX", "%"}))})
			}
			return mk("trim", side, false, args...)
		case 3:
			return mk("fn", "replace", false, sub(TText), g.textLit(), g.textLit())
		case 4, 5:
			// text || any: the other side may be of any type.
			other := sub(g.typ())
			if g.p(0.5) {
				return mk("concat", "", false, sub(TText), other)
			}
			return mk("concat", "", false, other, sub(TText))
		}
	case TInt:
		if g.p(0.1) {
			// extract is numeric: cast to bigint so its scale (6 for a
			// second) never meets another numeric's (which PostgreSQL
			// keeps per value); extract.slt pins the numeric text.
			if g.p(0.5) {
				return mk("extract", pick(g, extractFields), false, sub(TTimestamp))
			}
			return mk("extract", pick(g, extractDateFields), false, sub(TDate))
		}
		switch g.n(4) {
		case 0:
			// length of char(n) leaves its trailing blanks out.
			return mk("fn", g.lengthFn(), false, sub(pick(g, []Type{TText, TText, TVarchar, TChar})))
		case 1:
			if g.p(0.5) {
				return mk("position", "", false, g.textLit(), sub(TText))
			}
			return mk("fn", "strpos", false, sub(TText), sub(TText))
		case 2:
			if safe {
				return nil
			}
			return mk("fn", "abs", true, sub(TInt))
		case 3:
			if safe {
				return nil
			}
			return mk("fn", "mod", true, sub(TInt), sub(TInt))
		}
	case TFloat:
		if g.p(0.15) {
			// date_part of a date is of its midnight (hour is 0).
			x := sub(pick(g, []Type{TDate, TTimestamp}))
			f := pick(g, extractFields)
			return mk("date_part", f, false, x)
		}
		switch g.n(4) {
		case 0:
			if g.p(0.2) {
				return mk("fn", "abs", false, sub(TFloat)) // abs(bigint) is a bigint
			}
			return mk("fn", pick(g, []string{"round", "floor", "ceil", "ceiling"}), false, sub(pick(g, []Type{TFloat, TFloat, TInt, TF32, TI16, TI32})))
		case 1:
			if safe {
				return nil
			}
			return mk("fn", "sqrt", true, sub(TFloat))
		case 2:
			if safe {
				return nil
			}
			return mk("fn", pick(g, []string{"power", "pow"}), true, sub(TFloat), sub(pick(g, []Type{TFloat, TInt})))
		}
	case TI16, TI32, TF32, TNumeric:
		// abs keeps smallint, integer, real and numeric (abs of the
		// smallest integer raises); mod keeps the integer types.
		if t == TNumeric && g.p(0.3) {
			// round/trunc to 2 places: scale 2, the numeric columns' own
			// (other places would meet them at a per-value scale).
			return mk("fn", pick(g, []string{"round", "trunc"}), false, sub(TNumeric), &Expr{Op: "lit", Type: TInt, Text: "2"})
		}
		switch g.n(3) {
		case 0:
			if safe {
				return nil
			}
			return mk("fn", "abs", true, sub(t))
		case 1:
			if safe || !t.integer() {
				return nil
			}
			return mk("fn", "mod", true, sub(t), sub(t))
		}
	case TBool:
		switch g.n(3) {
		case 0, 1:
			op := pick(g, []string{"like", "like", "ilike", "notlike", "notilike"})
			pat := &Expr{Op: "lit", Type: TText, Text: quote(g.likePattern())}
			raises := false
			if !safe && g.p(0.2) {
				// A pattern from the data may end in '': an error where
				// the matcher reaches it.
				pat, raises = sub(TText), true
			}
			esc := ""
			if pat.Op == "lit" && g.p(0.3) {
				esc = "ESCAPE " + quote(pick(g, []string{"!", "", `\`}))
			}
			return mk(op, esc, raises, sub(g.likeOperandType()), pat)
		case 2:
			ct := g.typ()
			return mk(pick(g, []string{"distinct", "notdistinct"}), "", false, sub(ct), sub(ct))
		}
	}
	return nil
}

// scalarSQL renders the expressions of scalarExpr; ok is false for
// other ops.
func (e *Expr) scalarSQL() (string, bool) {
	a := func(i int) string { return e.Args[i].SQL() }
	list := func(from int) string {
		var xs []string
		for _, x := range e.Args[from:] {
			xs = append(xs, x.SQL())
		}
		return strings.Join(xs, ", ")
	}
	switch e.Op {
	case "case":
		var b strings.Builder
		b.WriteString("(CASE")
		n := len(e.Args)
		if e.Text == "else" {
			n--
		}
		for i := 0; i+1 < n; i += 2 {
			fmt.Fprintf(&b, " WHEN %s THEN %s", a(i), a(i+1))
		}
		if e.Text == "else" {
			b.WriteString(" ELSE " + a(n))
		}
		b.WriteString(" END)")
		return b.String(), true
	case "coalesce":
		return "coalesce(" + list(0) + ")", true
	case "nullif":
		return "nullif(" + list(0) + ")", true
	case "distinct":
		return "(" + a(0) + " IS DISTINCT FROM " + a(1) + ")", true
	case "notdistinct":
		return "(" + a(0) + " IS NOT DISTINCT FROM " + a(1) + ")", true
	case "like", "ilike", "notlike", "notilike":
		kw := map[string]string{"like": " LIKE ", "ilike": " ILIKE ", "notlike": " NOT LIKE ", "notilike": " NOT ILIKE "}[e.Op]
		s := "(" + a(0) + kw + a(1)
		if e.Text != "" {
			s += " " + e.Text
		}
		return s + ")", true
	case "concat":
		return "(" + a(0) + " || " + a(1) + ")", true
	case "position":
		return "position(" + a(0) + " IN " + a(1) + ")", true
	case "trim":
		switch e.Text {
		case "both", "leading", "trailing":
			if len(e.Args) == 1 {
				return "trim(" + strings.ToUpper(e.Text) + " FROM " + a(0) + ")", true
			}
			return "trim(" + strings.ToUpper(e.Text) + " " + a(1) + " FROM " + a(0) + ")", true
		}
		return e.Text + "(" + list(0) + ")", true
	case "date_part":
		return "date_part('" + e.Text + "', " + a(0) + ")", true
	case "extract":
		return "CAST(extract(" + e.Text + " FROM " + a(0) + ") AS bigint)", true
	case "fn":
		if e.Text == "substring_from" {
			s := "substring(" + a(0) + " FROM " + a(1)
			if len(e.Args) == 3 {
				s += " FOR " + a(2)
			}
			return s + ")", true
		}
		return e.Text + "(" + list(0) + ")", true
	}
	return "", false
}
