package difftest

import (
	"math/big"
	"regexp"
	"strings"
)

// numericOverflowOp is stablerow's error for a numeric operation over two
// values whose result leaves decimal128: the operands as the kernel
// printed them (constants folded while planning, or one row's values).
var numericOverflowOp = regexp.MustCompile(`numeric field overflow in (-?[0-9]+(?:\.[0-9]+)?) ([-+*/]) (-?[0-9]+(?:\.[0-9]+)?)(?:$|[ )])`)

// beyond38Digits: err is "numeric field overflow" of one operation whose
// exact result, at the scale stablerow gives that operation's result
// (+ and -: the larger scale; *: the sum; /: max(both, 20), README's SQL
// table), needs more than 38 digits: the documented limit of
// stablerow's numeric (decimal128), where PostgreSQL's numeric has none.
// Any other overflow, an operand that is not a plain number, or a result
// that would fit, is not matched and stays a divergence.
func beyond38Digits(msg string) bool {
	m := numericOverflowOp.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	a, sa, ok1 := ratOf(m[1])
	b, sb, ok2 := ratOf(m[3])
	if !ok1 || !ok2 {
		return false
	}
	r := new(big.Rat)
	scale := max(sa, sb)
	switch m[2] {
	case "+":
		r.Add(a, b)
	case "-":
		r.Sub(a, b)
	case "*":
		r.Mul(a, b)
		scale = sa + sb
	case "/":
		if b.Sign() == 0 {
			return false
		}
		r.Quo(a, b)
		scale = max(sa, sb, 20)
	}
	// The integer digits of |r|, then the scale's.
	q := new(big.Int).Quo(new(big.Int).Abs(r.Num()), r.Denom())
	digits := 0
	if q.Sign() != 0 {
		digits = len(q.String())
	}
	return digits+scale > 38
}

// ratOf is a plain decimal's value and scale.
func ratOf(s string) (*big.Rat, int, bool) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, 0, false
	}
	scale := 0
	if _, frac, found := strings.Cut(s, "."); found {
		scale = len(frac)
	}
	return r, scale, true
}
