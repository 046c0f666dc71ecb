// Package deepsql generates SQL statements whose expressions are deep or
// long, one operator class at a time, for the tests and the fuzz target
// that check no statement can overflow the parser's stack (plan/sql's
// MaxDepth): arithmetic, comparison chains, ||, CASE, function calls,
// parentheses, unary minus, AND/OR, NOT, casts, array subscripts,
// subqueries, set operations, and the flat lists (IN, VALUES) that must
// not count as depth.
package deepsql

import (
	"strconv"
	"strings"
)

// Class is an operator class.
type Class uint8

// The classes.
const (
	Arith Class = iota
	Compare
	Concat
	Case
	Func
	Paren
	Minus
	AndOr
	Not
	Cast
	Subscript
	Subquery
	Union
	List
	Mixed
	NumClasses
)

var names = [...]string{"arith", "compare", "concat", "case", "func", "paren", "minus", "andor", "not", "cast", "subscript", "subquery", "union", "list", "mixed"}

func (c Class) String() string {
	if c < NumClasses {
		return names[c]
	}
	return "class" + strconv.Itoa(int(c))
}

// Statement returns a statement holding an expression of class c with n
// operators or nestings (n terms for a chain, n levels for a nesting).
// shape picks the variant: which side nests (a left-deep chain, a
// right-nested parenthesized one, ...) and, in its higher bits, the
// statement around the expression (a SELECT list, a WHERE, a subquery in
// FROM). Every statement is valid SQL for any n; some fail to type-check
// in stablerow (they are still parsed first).
func Statement(c Class, n, shape int) string {
	c %= NumClasses
	n = max(n, 0)
	var b strings.Builder
	b.Grow(n*8 + 64)
	switch c {
	case Union:
		writeUnion(&b, n, shape)
		return b.String()
	case List:
		if shape%2 == 1 {
			b.WriteString("SELECT count(*), max(a) FROM (VALUES (1, 'a')")
			for i := range n {
				b.WriteString(", (")
				b.WriteString(strconv.Itoa(i))
				b.WriteString(", 'a')")
			}
			b.WriteString(") AS v(a, b)")
			return b.String()
		}
	}
	var prefix, suffix string
	switch (shape >> 2) % 3 {
	case 0:
		prefix, suffix = "SELECT ", ""
	case 1:
		prefix, suffix = "SELECT 1 WHERE (", ") IS NOT NULL"
	case 2:
		prefix, suffix = "SELECT x FROM (SELECT ", " AS x) AS s"
	}
	b.WriteString(prefix)
	writeExpr(&b, c, n, shape%4)
	b.WriteString(suffix)
	return b.String()
}

func rep(b *strings.Builder, s string, n int) {
	for range n {
		b.WriteString(s)
	}
}

// chain writes first followed by n times op and operand: left-deep when
// shape is even, right-nested in parentheses when odd.
func chain(b *strings.Builder, first string, ops []string, operand string, n, shape int) {
	if shape%2 == 0 {
		b.WriteString(first)
		for i := range n {
			b.WriteString(ops[i%len(ops)])
			b.WriteString(operand)
		}
		return
	}
	for i := range n {
		b.WriteString(operand)
		b.WriteString(ops[i%len(ops)])
		b.WriteByte('(')
	}
	b.WriteString(first)
	rep(b, ")", n)
}

// nest writes open n times, inner, then close n times.
func nest(b *strings.Builder, open, inner, close string, n int) {
	rep(b, open, n)
	b.WriteString(inner)
	rep(b, close, n)
}

func writeExpr(b *strings.Builder, c Class, n, shape int) {
	switch c {
	case Arith:
		chain(b, "1", []string{" + ", " - ", " * ", " / "}, "1", n, shape)
	case Compare:
		switch shape {
		case 0, 1: // ((1 < 2) = true) = true ... and true = (true = (1 < 2))
			if shape == 0 {
				nest(b, "(", "1 < 2", ") = true", n)
			} else {
				nest(b, "true = (", "1 < 2", ")", n)
			}
		case 2: // ((1 IS NULL) IS NOT NULL) IS NULL ...
			nest(b, "(", "1 IS NULL", ") IS NOT NULL", n)
		default: // 1 <> 2 AND 1 < 2 AND ...: flat
			b.WriteString("1 < 2")
			for i := range n {
				b.WriteString([]string{" AND 1 <> 2", " AND 2 >= 1", " OR 1 = 1"}[i%3])
			}
		}
	case Concat:
		chain(b, "'a'", []string{" || "}, "'b'", n, shape)
	case Case:
		switch shape {
		case 0:
			nest(b, "CASE WHEN true THEN ", "1", " ELSE 0 END", n)
		case 1:
			nest(b, "CASE WHEN false THEN 0 ELSE ", "1", " END", n)
		case 2:
			nest(b, "CASE ", "1", " WHEN 1 THEN 1 ELSE 2 END", n)
		default: // one CASE of n arms: flat
			b.WriteString("CASE 1")
			for i := range n {
				b.WriteString(" WHEN ")
				b.WriteString(strconv.Itoa(i + 2))
				b.WriteString(" THEN 1")
			}
			b.WriteString(" ELSE 0 END")
		}
	case Func:
		switch shape {
		case 0:
			nest(b, "abs(", "1", ")", n)
		case 1:
			nest(b, "coalesce(", "1", ", 0)", n)
		case 2:
			nest(b, "greatest(1, ", "1", ")", n)
		default: // one call of n arguments: flat
			b.WriteString("greatest(1")
			rep(b, ", 1", n)
			b.WriteString(")")
		}
	case Paren:
		nest(b, "(", "1", ")", n)
	case Minus:
		if shape%2 == 0 {
			nest(b, "- ", "1", "", n)
		} else {
			nest(b, "-(", "1", ")", n)
		}
	case AndOr:
		switch shape {
		case 0: // flat: the grammar makes one BoolExpr of a chain
			chain(b, "true", []string{" AND ", " OR "}, "true", n, 0)
		case 1:
			chain(b, "true", []string{" AND ", " OR "}, "true", n, 1)
		default: // ((true AND true) OR true) AND true ...
			nest(b, "(", "true", []string{") AND true", ") OR true"}[shape%2], n)
		}
	case Not:
		if shape%2 == 0 {
			nest(b, "NOT ", "true", "", n)
		} else {
			nest(b, "NOT (", "true", ")", n)
		}
	case Cast:
		switch shape {
		case 0:
			b.WriteString("1")
			rep(b, "::bigint", n)
		case 1:
			nest(b, "CAST(", "1", " AS bigint)", n)
		default:
			b.WriteString("1")
			for i := range n {
				b.WriteString([]string{"::text", "::bigint"}[i%2])
			}
		}
	case Subscript:
		switch shape {
		case 0: // (ARRAY[1])[1][1]...: one flat indirection list
			b.WriteString("(ARRAY[1])")
			rep(b, "[1]", n)
		case 1:
			nest(b, "ARRAY[", "1", "]", n)
		default: // (((ARRAY[1])[1:1])[1:1]) ...
			nest(b, "(", "ARRAY[1]", ")[1:1]", n)
		}
	case Subquery:
		switch shape {
		case 0:
			nest(b, "(SELECT ", "1", ")", n)
		case 1:
			nest(b, "(SELECT 1 WHERE EXISTS (SELECT ", "1", "))", n)
		default:
			nest(b, "(SELECT y FROM (SELECT ", "1", " AS y) AS s)", n)
		}
	case List: // 1 IN (0, 1, ..., n): flat
		b.WriteString("1 IN (0")
		for i := range n {
			b.WriteString(", ")
			b.WriteString(strconv.Itoa(i + 1))
		}
		b.WriteString(")")
	case Mixed: // each level a different class around the one below
		wraps := [][2]string{{"(", " + 1)"}, {"abs(", ")"}, {"CASE WHEN true THEN ", " END"}, {"-(", ")"}, {"(", ")::bigint"}, {"(SELECT ", ")"}, {"coalesce(", ", 1)"}, {"(", " * 2)"}}
		for i := range n {
			b.WriteString(wraps[(i+shape)%len(wraps)][0])
		}
		b.WriteString("1")
		for i := n - 1; i >= 0; i-- {
			b.WriteString(wraps[(i+shape)%len(wraps)][1])
		}
	}
}

// Flat reports whether Statement(c, n, shape) is flat for any n: a list
// (IN, VALUES, a CASE's arms, a call's arguments, a chain of AND/OR the
// grammar makes one node of, subscripts), not a nesting, so it must parse
// however long it is.
func Flat(c Class, shape int) bool {
	c %= NumClasses
	switch c {
	case List:
		return true
	case Compare, Case, Func:
		return shape%4 == 3
	case AndOr, Subscript:
		return shape%4 == 0
	}
	return false
}

// writeUnion writes n set operations: left-deep (SELECT 1 UNION ALL
// SELECT 1 ...) or right-nested in parentheses.
func writeUnion(b *strings.Builder, n, shape int) {
	ops := []string{" UNION ALL ", " UNION ", " EXCEPT ", " INTERSECT "}
	if shape%2 == 0 {
		b.WriteString("SELECT 1")
		for i := range n {
			b.WriteString(ops[i%len(ops)])
			b.WriteString("SELECT 1")
		}
		return
	}
	for i := range n {
		b.WriteString("SELECT 1")
		b.WriteString(ops[i%len(ops)])
		b.WriteByte('(')
	}
	b.WriteString("SELECT 1")
	rep(b, ")", n)
}
