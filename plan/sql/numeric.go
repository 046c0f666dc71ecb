package sql

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// numericArith lowers + - * with a numeric operand (and no float, which
// makes the whole double precision): integers become the numeric that
// holds them exactly, an untyped string the numeric of its digits, and
// each operand keeps its own scale; the result is exact (numeric(p1, s1)
// + numeric(p2, s2) has scale max(s1, s2), * has s1 + s2, as PostgreSQL
// computes them). Division is refused: PostgreSQL picks its scale per
// value (select_div_scale), which no decimal128 type holds. ok is false
// when no operand is numeric.
func (l *lowerer) numericArith(op string, lv, rv value, loc int32) (value, bool, error) {
	lk, rk := lv.kind(), rv.kind()
	if lk.id != idNumeric && rk.id != idNumeric || lk.float() && lv.num == "" || rk.float() && rv.num == "" {
		return value{}, false, nil
	}
	if op == "/" || op == "%" {
		return value{}, true, fmt.Errorf("%w: numeric %s (its result scale is chosen per value)%s", ErrUnsupported, op, l.src.at(loc))
	}
	operand := func(v, other value) (expr.Expression, error) {
		k := v.kind()
		switch {
		case v.num != "":
			return l.parseLiteral(v.num, numericLiteralKind(v.num), v.loc) // 1.5 is numeric(2,1)
		case v.how == untypedString:
			k = numericLiteralKind(v.str)
		case v.how != typed:
			k = other.kind()
		case k.integer():
			k = k.asNumeric()
		case k.id != idNumeric:
			return nil, fmt.Errorf("%w: operator does not exist: %s %s %s%s", ErrType, l.describeKind(lv), op, l.describeKind(rv), l.src.at(loc))
		}
		if v.how != typed {
			return l.coerce(v, k)
		}
		return l.cast(v.e, k, false, v.loc)
	}
	a, err := operand(lv, rv)
	if err != nil {
		return value{}, true, err
	}
	b, err := operand(rv, lv)
	if err != nil {
		return value{}, true, err
	}
	e, err := l.call(urnArithmetic, arithmetic[op], loc, a, b)
	return value{e: e, loc: loc}, true, err
}

// negateNumeric is -x for a numeric x: x * -1, which keeps x's scale.
func (l *lowerer) negateNumeric(e expr.Expression, loc int32) (expr.Expression, error) {
	return l.call(urnArithmetic, "multiply", loc, e, newLiteral(decLit{v: decimal128.FromI64(-1), p: 1, s: 0}, false))
}

// numericLiteralKind is the numeric an untyped string like '12.50' reads
// as beside a numeric: exactly its digits.
func numericLiteralKind(s string) kind {
	t := strings.TrimLeft(strings.Trim(s, " \t\n\r"), "+-")
	intPart, frac, _ := strings.Cut(t, ".")
	intPart = strings.TrimLeft(intPart, "0")
	return kindNumeric(max(int32(len(intPart)+len(frac)), 1), int32(len(frac)))
}
