package sql

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
)

// foldNumericConstants computes +, - and * of two decimal constants
// exactly, as PostgreSQL's numeric does (0.06 + 0.01 is 0.07, where
// double precision gives 0.06999999999999999 and a BETWEEN with it loses
// the rows at 0.07: TPC-H Q6). The result is a decimal constant again (its
// text in num), of scale max(s1, s2) for + and -, s1 + s2 for *. ok is
// false unless both operands are numeric constants and one has a
// fraction (integers fold as integers).
func foldNumericConstants(op string, lv, rv value) (value, bool) {
	if op != "+" && op != "-" && op != "*" {
		return value{}, false
	}
	a, okA := constantText(lv)
	b, okB := constantText(rv)
	if !okA || !okB || (!strings.Contains(a, ".") && !strings.Contains(b, ".")) {
		return value{}, false
	}
	x, okX := new(big.Rat).SetString(a)
	y, okY := new(big.Rat).SetString(b)
	if !okX || !okY {
		return value{}, false
	}
	sa, sb := fractionDigits(a), fractionDigits(b)
	var r *big.Rat
	scale := max(sa, sb)
	switch op {
	case "+":
		r = new(big.Rat).Add(x, y)
	case "-":
		r = new(big.Rat).Sub(x, y)
	default:
		r = new(big.Rat).Mul(x, y)
		scale = sa + sb
	}
	text := r.FloatString(scale)
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return value{}, false
	}
	return value{e: expr.NewPrimitiveLiteral(f, false), loc: lv.loc, num: text}, true
}

// constantText is a numeric constant's exact text: a decimal constant's
// num, or an integer literal's digits.
func constantText(v value) (string, bool) {
	if v.how != typed {
		return "", false
	}
	if v.num != "" {
		return v.num, true
	}
	lit, ok := literalOf(v.e)
	if !ok {
		return "", false
	}
	switch x := lit.(type) {
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	}
	return "", false
}

func fractionDigits(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}
