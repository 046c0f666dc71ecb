package difftest

import (
	"math/big"
	"regexp"
	"strings"
)

// numericOverflow is stablerow's error for a numeric operation whose
// result leaves decimal128: "numeric field overflow in A op B", each
// operand as the kernel printed it (a constant folded while planning, a
// column as name@index whose value the error's "(row: name = value, ...)"
// gives, exec/physexpr's exprerror.go, or a COALESCE of those), then the
// row, if any.
var numericOverflow = regexp.MustCompile(`numeric field overflow in (.+?)(?: \(row: (.*)\))?$`)

// rowValue is one "name = value" of the error's row.
var rowValue = regexp.MustCompile(`(?:^|, )([a-z_][a-z0-9_]*) = (-?[0-9]+(?:\.[0-9]+)?|NULL)\b`)

// beyond38Digits: err is "numeric field overflow" of one operation whose
// exact result, at the scale stablerow gives that operation's result
// (+ and -: the larger scale; *: the sum; /: max(both, 20), README's SQL
// table), needs more than 38 digits: the documented limit of
// stablerow's numeric (decimal128), where PostgreSQL's numeric has none.
// Any other overflow, an operand this cannot evaluate (only numbers,
// columns with their row values and COALESCE of them), or a result that
// would fit, is not matched and stays a divergence.
func beyond38Digits(msg string) bool {
	m := numericOverflow.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	row := map[string]string{}
	for _, v := range rowValue.FindAllStringSubmatch(m[2], -1) {
		row[v[1]] = v[2]
	}
	left, op, right, ok := splitOperation(m[1])
	if !ok {
		return false
	}
	a, sa, ok1 := operandValue(left, row)
	b, sb, ok2 := operandValue(right, row)
	if !ok1 || !ok2 {
		return false
	}
	r := new(big.Rat)
	scale := max(sa, sb)
	switch op {
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

// splitOperation splits "A op B" at its one operator outside parentheses.
func splitOperation(s string) (left, op, right string, ok bool) {
	depth := 0
	for i := 0; i+3 <= len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ' ':
			if depth == 0 && strings.ContainsRune("+-*/", rune(s[i+1])) && s[i+2] == ' ' {
				return s[:i], s[i+1 : i+2], s[i+3:], true
			}
		}
	}
	return "", "", "", false
}

// operandValue is an operand's value and scale: a plain number, a column
// (name@index) read from the row, or COALESCE of such, its first value
// that is not NULL.
func operandValue(s string, row map[string]string) (*big.Rat, int, bool) {
	if inner, ok := strings.CutPrefix(s, "COALESCE("); ok && strings.HasSuffix(inner, ")") {
		for _, arg := range strings.Split(strings.TrimSuffix(inner, ")"), ", ") {
			if v, sc, ok := operandValue(arg, row); ok {
				return v, sc, true
			}
		}
		return nil, 0, false
	}
	if name, _, isCol := strings.Cut(s, "@"); isCol {
		s = row[name]
	}
	return ratOf(s)
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
