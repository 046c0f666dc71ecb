package physexpr

import (
	"fmt"
	"strings"
)

// An expression's text (EXPLAIN, ExprError) is read as SQL, so a nested
// operator gets parentheses wherever PostgreSQL's precedence would parse
// the text differently from the tree: (1000 / (x - 1)) * 2 must not print
// as 1000 / x - 1 * 2. The levels are PostgreSQL's (the table "Operator
// Precedence" in 4.1.6 of its manual), low to high.
const (
	precOr = 1 + iota
	precAnd
	precNot
	precIs
	precCompare
	precAdd
	precMul
	precAtom // a column, literal, call, CAST: never parenthesized
)

// opPrec is the precedence of a binary operator.
func opPrec(op Op) int {
	switch op {
	case OpOr:
		return precOr
	case OpAnd:
		return precAnd
	case OpAdd, OpSub:
		return precAdd
	case OpMul, OpDiv, OpMod:
		return precMul
	}
	return precCompare
}

// exprPrec is the precedence of e's outermost operator.
func exprPrec(e Expr) int {
	switch x := unmemo(e).(type) {
	case Binary:
		return opPrec(x.Op)
	case DecimalArith:
		return opPrec(x.Op)
	case DateArith:
		return opPrec(x.Op)
	case Unary:
		if x.Op == OpNot {
			return precNot
		}
		return precIs
	}
	return precAtom
}

// writeSub writes e, in parentheses if its operator binds less tightly
// than min.
func writeSub(b *strings.Builder, e Expr, min int) {
	paren := exprPrec(e) < min
	if paren {
		b.WriteByte('(')
	}
	switch x := unmemo(e).(type) {
	case Binary:
		x.write(b)
	default:
		fmt.Fprintf(b, "%s", e)
	}
	if paren {
		b.WriteByte(')')
	}
}

// writeInfix writes l op r. Operators group left to right, so a right
// operand at the same level needs parentheses (a - (b - c)); AND and OR
// are associative and chain without them; comparisons do not chain in
// SQL, so both sides of one are parenthesized at its level.
func writeInfix(b *strings.Builder, op Op, l, r Expr) {
	p := opPrec(op)
	lmin, rmin := p, p+1
	switch p {
	case precOr, precAnd:
		rmin = p
	case precCompare:
		lmin = p + 1
	}
	writeSub(b, l, lmin)
	b.WriteByte(' ')
	b.WriteString(opInfo[op].sym)
	b.WriteByte(' ')
	writeSub(b, r, rmin)
}

// infixString is writeInfix's text.
func infixString(op Op, l, r Expr) string {
	var b strings.Builder
	writeInfix(&b, op, l, r)
	return b.String()
}
