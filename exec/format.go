package exec

import (
	"math"
	"strconv"
)

// FormatFloat writes f as PostgreSQL's float8out (bits 64) or float4out
// (bits 32) does with its default extra_float_digits = 1: the shortest
// decimal that reads back to the same value, in plain notation unless the
// decimal exponent is below -4 or at least DBL_DIG (15; FLT_DIG, 6, for
// float4), where it switches to d.ddde±XX with at least two exponent
// digits. So 1234567 prints as "1234567", 1e15 as "1e+15", 0.00001 as
// "1e-05". strconv's shortest 'g' switches to exponents at 21 digits
// (1234567 as "1.234567e+06"), which is why SQL output needs this function.
//
// Every place that turns a float into text (CAST AS TEXT, the CLI, the
// sqllogictest runner) calls this, so they cannot disagree.
func FormatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	digits := 15
	if bits == 32 {
		digits = 6
	}
	// The shortest round-trip digits in exponent form tell the decimal
	// exponent without a second rounding.
	e := strconv.FormatFloat(f, 'e', -1, bits)
	exp := 0
	for i := len(e) - 1; i >= 0; i-- {
		if e[i] == 'e' {
			exp, _ = strconv.Atoi(e[i+1:])
			break
		}
	}
	if exp < -4 || exp >= digits {
		return e
	}
	return strconv.FormatFloat(f, 'f', -1, bits)
}
