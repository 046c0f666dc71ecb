package difftest

import (
	"math/big"
	"regexp"
	"strings"
)

// numericOverflowOp is stablerow's error for a numeric operation over two
// values whose result leaves decimal128: the operands as the kernel
// printed them (constants folded while planning, or one row's values).
// An operand may be a column the kernel names as name@index, whose value
// the error's "(row: name = value, ...)" gives (exec/physexpr's
// exprerror.go).
var numericOverflowOp = regexp.MustCompile(`numeric field overflow in (-?[0-9]+(?:\.[0-9]+)?|[a-z_][a-z0-9_]*@[0-9]+) ([-+*/]) (-?[0-9]+(?:\.[0-9]+)?|[a-z_][a-z0-9_]*@[0-9]+)(?:$|[ )])`)

// rowValue is one "name = value" of the error's row.
var rowValue = regexp.MustCompile(`(?:row: |, )([a-z_][a-z0-9_]*) = (-?[0-9]+(?:\.[0-9]+)?)\b`)

// beyond38Digits: err is "numeric field overflow" of one operation whose
// exact result, at the scale stablerow gives that operation's result
// (+ and -: the larger scale; *: the sum; /: max(both, 20), README's SQL
// table), needs more than 38 digits: the documented limit of
// stablerow's numeric (decimal128), where PostgreSQL's numeric has none.
// Any other overflow, an operand that is neither a plain number nor a
// column with its row value, or a result that would fit, is not matched
// and stays a divergence.
func beyond38Digits(msg string) bool {
	m := numericOverflowOp.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	row := map[string]string{}
	for _, v := range rowValue.FindAllStringSubmatch(msg, -1) {
		row[v[1]] = v[2]
	}
	operand := func(s string) string {
		if name, _, isCol := strings.Cut(s, "@"); isCol {
			return row[name]
		}
		return s
	}
	a, sa, ok1 := ratOf(operand(m[1]))
	b, sb, ok2 := ratOf(operand(m[3]))
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
	if s == "" {
		return nil, 0, false
	}
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
