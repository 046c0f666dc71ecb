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
// in stablerow (they are still parsed first). A negative n or shape
// counts as 0.
func Statement(c Class, n, shape int) string {
	c %= NumClasses
	n, shape = max(n, 0), max(shape, 0)
	f := forms[c][shape%4]
	var b strings.Builder
	b.Grow(n*8 + 64)
	if f.statement {
		f.write(&b, n)
		return b.String()
	}
	w := around[(shape>>2)%3]
	b.WriteString(w[0])
	f.write(&b, n)
	b.WriteString(w[1])
	return b.String()
}

// around[(shape>>2)%3] is the statement around an expression: a SELECT
// list, a WHERE, a subquery in FROM.
var around = [3][2]string{
	{"SELECT ", ""},
	{"SELECT 1 WHERE (", ") IS NOT NULL"},
	{"SELECT x FROM (SELECT ", " AS x) AS s"},
}

// Flat reports whether Statement(c, n, shape) is flat for any n: a list
// (IN, VALUES, a CASE's arms, a call's arguments, a chain of AND/OR the
// grammar makes one node of, subscripts), not a nesting, so it must parse
// however long it is.
func Flat(c Class, shape int) bool {
	return forms[c%NumClasses][max(shape, 0)%4].flat
}

// form is one variant of a class: what it writes for n, whether that is
// a whole statement (set operations, VALUES) rather than an expression a
// SELECT wraps, and whether it is flat.
type form struct {
	write     func(b *strings.Builder, n int)
	statement bool
	flat      bool
}

// forms[c][shape%4] is class c's variant for shape: every generator is a
// nesting, a chain or a list (below) with its own words.
var forms = [NumClasses][4]form{
	Arith:  chains("1", "1", " + ", " - ", " * ", " / "),
	Concat: chains("'a'", "'b'", " || "),
	Compare: {
		nested("(", "1 < 2", ") = true"),                                     // ((1 < 2) = true) = true ...
		nested("true = (", "1 < 2", ")"),                                     // true = (true = (1 < 2))
		nested("(", "1 IS NULL", ") IS NOT NULL"),                            // ((1 IS NULL) IS NOT NULL) IS NOT NULL ...
		flat(listed("1 < 2", "", " AND 1 <> 2", " AND 2 >= 1", " OR 1 = 1")), // 1 < 2 AND 1 <> 2 ...
	},
	Case: {
		nested("CASE WHEN true THEN ", "1", " ELSE 0 END"),
		nested("CASE WHEN false THEN 0 ELSE ", "1", " END"),
		nested("CASE ", "1", " WHEN 1 THEN 1 ELSE 2 END"),
		flat(numbered("CASE 1", " WHEN ", 2, " THEN 1", " ELSE 0 END")), // one CASE of n arms
	},
	Func: {
		nested("abs(", "1", ")"),
		nested("coalesce(", "1", ", 0)"),
		nested("greatest(1, ", "1", ")"),
		flat(listed("greatest(1", ")", ", 1")), // one call of n arguments
	},
	Paren: every(nested("(", "1", ")")),
	Minus: alternating(nested("- ", "1", ""), nested("-(", "1", ")")),
	AndOr: {
		flat(chain("true", "true", false, " AND ", " OR ")), // the grammar makes one BoolExpr of a chain
		chain("true", "true", true, " AND ", " OR "),
		nested("(", "true", ") AND true"), // ((true AND true) OR true) AND true ...
		nested("(", "true", ") OR true"),
	},
	Not: alternating(nested("NOT ", "true", ""), nested("NOT (", "true", ")")),
	Cast: {
		listed("1", "", "::bigint"),
		nested("CAST(", "1", " AS bigint)"),
		listed("1", "", "::text", "::bigint"),
		listed("1", "", "::text", "::bigint"),
	},
	Subscript: {
		flat(listed("(ARRAY[1])", "", "[1]")), // one flat indirection list
		nested("ARRAY[", "1", "]"),
		nested("(", "ARRAY[1]", ")[1:1]"), // (((ARRAY[1])[1:1])[1:1]) ...
		nested("(", "ARRAY[1]", ")[1:1]"),
	},
	Subquery: {
		nested("(SELECT ", "1", ")"),
		nested("(SELECT 1 WHERE EXISTS (SELECT ", "1", "))"),
		nested("(SELECT y FROM (SELECT ", "1", " AS y) AS s)"),
		nested("(SELECT y FROM (SELECT ", "1", " AS y) AS s)"),
	},
	Union: statements(chains("SELECT 1", "SELECT 1", " UNION ALL ", " UNION ", " EXCEPT ", " INTERSECT ")),
	List: alternating(
		flat(numbered("1 IN (0", ", ", 1, "", ")")), // 1 IN (0, 1, ..., n)
		statement(flat(numbered("SELECT count(*), max(a) FROM (VALUES (1, 'a')", ", (", 0, ", 'a')", ") AS v(a, b)"))),
	),
	Mixed: {mixed(0), mixed(1), mixed(2), mixed(3)},
}

// nested writes open n times, inner, then close n times.
func nested(open, inner, close string) form {
	return form{write: func(b *strings.Builder, n int) {
		rep(b, open, n)
		b.WriteString(inner)
		rep(b, close, n)
	}}
}

// chain writes first followed by n times an operator (ops in turn) and
// operand: left-deep, or right-nested in parentheses.
func chain(first, operand string, right bool, ops ...string) form {
	return form{write: func(b *strings.Builder, n int) {
		if !right {
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
	}}
}

// chains is a chain left-deep for even shapes, right-nested for odd ones.
func chains(first, operand string, ops ...string) [4]form {
	return alternating(chain(first, operand, false, ops...), chain(first, operand, true, ops...))
}

// listed writes head, n items (items in turn), then tail.
func listed(head, tail string, items ...string) form {
	return form{write: func(b *strings.Builder, n int) {
		b.WriteString(head)
		for i := range n {
			b.WriteString(items[i%len(items)])
		}
		b.WriteString(tail)
	}}
}

// numbered writes head, n items before+number+after counting from
// first, then tail.
func numbered(head, before string, first int, after, tail string) form {
	return form{write: func(b *strings.Builder, n int) {
		b.WriteString(head)
		for i := range n {
			b.WriteString(before)
			b.WriteString(strconv.Itoa(first + i))
			b.WriteString(after)
		}
		b.WriteString(tail)
	}}
}

// mixed nests a different class at each level around the one below,
// starting at wrap number offset.
func mixed(offset int) form {
	wraps := [][2]string{{"(", " + 1)"}, {"abs(", ")"}, {"CASE WHEN true THEN ", " END"}, {"-(", ")"}, {"(", ")::bigint"}, {"(SELECT ", ")"}, {"coalesce(", ", 1)"}, {"(", " * 2)"}}
	return form{write: func(b *strings.Builder, n int) {
		for i := range n {
			b.WriteString(wraps[(i+offset)%len(wraps)][0])
		}
		b.WriteString("1")
		for i := n - 1; i >= 0; i-- {
			b.WriteString(wraps[(i+offset)%len(wraps)][1])
		}
	}}
}

func flat(f form) form      { f.flat = true; return f }
func statement(f form) form { f.statement = true; return f }

func statements(fs [4]form) [4]form {
	for i := range fs {
		fs[i].statement = true
	}
	return fs
}

func every(f form) [4]form               { return [4]form{f, f, f, f} }
func alternating(even, odd form) [4]form { return [4]form{even, odd, even, odd} }

func rep(b *strings.Builder, s string, n int) {
	for range n {
		b.WriteString(s)
	}
}
