package difftest

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
)

// character(n) and varchar(n) values with trailing blanks, where
// PostgreSQL's bpchar rules and text's differ (issue 26 item 1): char =
// varchar compares as bpchar (blanks insignificant on both sides), char =
// text as text, LIKE on char(n) sees the value padded to n, length leaves
// char(n)'s blanks out and octet_length counts them, and the result shows
// char(n) padded. The draws here feed the columns' values and literals
// (stringValue), LIKE's operand and patterns (likeOperandType,
// charLikePatterns), the lengths (lengthFn) and join keys (joinKeys).

// charPool are strings with trailing (and leading) blanks, at most 4
// characters but for the blanks, so CHAR(4) and VARCHAR(6) take them.
var charPool = []string{
	"ab", "ab ", "ab  ", "ab    ", "a", "a ", " a", " a ", "x y ", "é ", "é", "", " ", "  ",
	"abc ", "abcd", "abcd  ", "日本 ", "A", "a\t ",
}

// charLikePatterns see the blanks of a padded char(4): wildcards at the
// blanks' places and blanks in the pattern.
var charLikePatterns = []string{"ab", "ab__", "ab  ", "ab%", "%  ", "% ", "a___", "_ %", "%b_", "é___", "%"}

// stringValue is a value for a string column or literal of type t: more
// often one with trailing blanks for char(n) and varchar(n).
func (g *Gen) stringValue(t Type) string {
	switch {
	case (t == TChar || t == TVarchar) && g.p(0.5), t == TText && g.p(0.15):
		return pick(g, charPool)
	}
	return pick(g, textPool)
}

// likeOperandType is the type of LIKE's left operand: text mostly,
// char(n) (matched padded) and varchar(n) (as it is) too.
func (g *Gen) likeOperandType() Type {
	return pick(g, []Type{TText, TText, TText, TChar, TChar, TVarchar})
}

// likePattern is a pattern literal: likePatterns, or one about blanks.
func (g *Gen) likePattern() string {
	if g.p(0.3) {
		return pick(g, charLikePatterns)
	}
	return pick(g, likePatterns)
}

// lengthFn is a length function of a string: length and char_length
// leave char(n)'s trailing blanks out, octet_length counts them.
func (g *Gen) lengthFn() string {
	return pick(g, []string{"length", "char_length", "octet_length"})
}

// joinKeys picks ON a.x = b.y over the columns of a (as) and b (bs): of
// one type, or a char(n) beside a varchar(n) or text (compared as bpchar
// and as text); l, r unchanged when no pair is found.
func (g *Gen) joinKeys(as, bs scope, l, r string) (string, string) {
	lt := pick(g, []Type{TInt, TFloat, TText, TBool, TI16, TI32, TF32, TVarchar, TChar, TChar})
	rt := lt
	if lt == TChar && g.p(0.5) {
		rt = pick(g, []Type{TVarchar, TText})
		if g.p(0.5) {
			lt, rt = rt, lt
		}
	}
	ls, rs := as.ofType(lt), bs.ofType(rt)
	if len(ls) == 0 || len(rs) == 0 {
		return l, r
	}
	return pick(g, ls).name, pick(g, rs).name
}

// withStringColumns gives, in some cases, every table a CHAR(4) column
// and a VARCHAR(6) or TEXT one more, filled from charPool, so that the
// expressions meet char(n) beside varchar and text over values with
// trailing blanks far more often than the random column types make them.
// Its draws come from a source seeded by the tables themselves, not from
// g's: the cases it leaves alone are drawn as before. Cases with a
// numeric column are left alone (their numeric quotients and averages).
func (g *Gen) withStringColumns(ts []*Table) {
	h := fnv.New64a()
	for _, t := range ts {
		for _, c := range t.Cols {
			if c.Type == TNumeric {
				return // left to the numeric draws (genagg.go, numericQuotient)
			}
		}
		fmt.Fprint(h, t.Name, t.Cols, t.Rows)
	}
	aux := &Gen{r: rand.New(rand.NewPCG(h.Sum64(), 0x62706368))} // "bpch"
	if !aux.p(0.25) {
		return
	}
	for _, t := range ts {
		for _, typ := range []Type{TChar, pick(aux, []Type{TVarchar, TVarchar, TText})} {
			t.Cols = append(t.Cols, Column{Name: fmt.Sprintf("c%d", len(t.Cols)-1), Type: typ})
			for i := range t.Rows {
				v := "NULL"
				if !aux.p(0.1) {
					v = quote(pick(aux, charPool))
				}
				t.Rows[i] = append(t.Rows[i], v)
			}
		}
	}
}

// charConjunct, where the query's scope s has a char(n) column, often ANDs
// into WHERE a predicate on it that tells bpchar from text (charPred).
// Its draws come from a source seeded by the scope, not from g's. It
// never raises.
func (g *Gen) charConjunct(q *Query, s scope) {
	chars := s.ofType(TChar)
	if len(chars) == 0 || q.Where != nil && q.Where.Raises {
		return // AND's operands never raise: either side may skip the other
	}
	aux := auxGen(s, q.Where != nil)
	if !aux.p(0.6) {
		return
	}
	p := aux.charPred(s, pick(aux, chars).name)
	if q.Where != nil {
		p = &Expr{Op: "and", Type: TBool, Args: []*Expr{p, q.Where}}
	}
	q.Where = p
}

// auxGen is a generator seeded by xs, drawing apart from the case's own.
func auxGen(xs ...any) *Gen {
	h := fnv.New64a()
	fmt.Fprint(h, xs...)
	return &Gen{r: rand.New(rand.NewPCG(h.Sum64(), 0x62706368))} // "bpch"
}

// charPred is a predicate on char(n) column col of s: against a varchar,
// text or char column or literal (=, <, <>), LIKE over it with a
// blank-aware pattern, or its octet_length or length against a number.
func (g *Gen) charPred(s scope, col string) *Expr {
	c := &Expr{Op: "col", Type: TChar, Text: col}
	switch g.n(4) {
	case 0, 1:
		rt := pick(g, []Type{TVarchar, TVarchar, TText, TChar})
		other := &Expr{Op: "lit", Type: rt, Text: "CAST(" + quote(pick(g, charPool)) + " AS " + rt.SQL() + ")"}
		if cols := s.ofType(rt); len(cols) > 0 && g.p(0.7) {
			other = &Expr{Op: "col", Type: rt, Text: pick(g, cols).name}
		}
		args := []*Expr{c, other}
		if g.p(0.5) {
			args[0], args[1] = other, c
		}
		return &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"=", "=", "<>", "<", ">="}), Args: args}
	case 2:
		pat := &Expr{Op: "lit", Type: TText, Text: quote(pick(g, charLikePatterns))}
		return &Expr{Op: pick(g, []string{"like", "like", "notlike", "ilike"}), Type: TBool, Args: []*Expr{c, pat}}
	}
	n := &Expr{Op: "fn", Type: TInt, Text: pick(g, []string{"octet_length", "length"}), Args: []*Expr{c}}
	return &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{"=", "<"}), Args: []*Expr{n, {Op: "lit", Type: TInt, Text: fmt.Sprintf("CAST(%d AS BIGINT)", g.between(1, 5))}}}
}

// charProbe is, for some cases with a char(n) column, a query that shows
// the bpchar rules on every row rather than filtering by them: SELECT
// a.k, then char(n) predicates, lengths and || over the table's
// columns, ORDER BY a.k; or the column grouped (GROUP BY, DISTINCT) with
// its count and octet_length. nil for the other cases and those with a
// numeric column (no draw from g).
func (g *Gen) charProbe(ts []*Table) *Query {
	var t *Table
	for _, x := range ts {
		for _, c := range x.Cols {
			switch {
			case c.Type == TNumeric:
				return nil // left to the numeric draws, as in withStringColumns
			case c.Type == TChar && t == nil:
				t = x
			}
		}
	}
	if t == nil {
		return nil
	}
	s := tableScope(t, "a")
	aux := auxGen(s, len(t.Rows))
	if !aux.p(0.15) {
		return nil
	}
	col := pick(aux, s.ofType(TChar)).name
	c := &Expr{Op: "col", Type: TChar, Text: col}
	q := &Query{Limit: -1, Offset: -1, From: From{Kind: FromTable, T0: t.Name}}
	if aux.p(0.3) {
		// The group keys ignore the blanks; the result shows them.
		octet := &Expr{Op: "fn", Type: TInt, Text: "octet_length", Args: []*Expr{c}}
		q.Select = []*Expr{c, octet}
		if aux.p(0.5) {
			q.Distinct = true
		} else {
			q.GroupBy = []string{"1", "2"}
			q.Select = append(q.Select, &Expr{Op: "agg", Type: TInt, Text: "count", Args: []*Expr{{Op: "col", Type: TInt, Text: "a.k"}}})
		}
		q.OrderAll = true
		return q
	}
	q.Select = []*Expr{{Op: "col", Type: TInt, Text: "a.k"}}
	for i, n := 0, aux.between(2, 4); i < n; i++ {
		switch aux.n(5) {
		case 0:
			q.Select = append(q.Select, &Expr{Op: "fn", Type: TInt, Text: aux.lengthFn(), Args: []*Expr{c}})
		case 1:
			q.Select = append(q.Select, &Expr{Op: "concat", Type: TText, Args: []*Expr{c, {Op: "lit", Type: TText, Text: "'|'"}}})
		default:
			q.Select = append(q.Select, aux.charPred(s, col))
		}
	}
	q.OrderBy = []Order{{E: &Expr{Op: "col", Type: TInt, Text: "a.k"}}}
	q.Tiebreak = []string{"a.k"}
	return q
}
