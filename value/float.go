package value

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ParseFloat is float8in (bits 64) or float4in (bits 32): surrounding
// blanks ignored; NaN, Infinity and inf in any case; a value that
// overflows to an infinity or underflows to zero is out of range, an
// error, never Inf or 0 ('1e-400'::float8). The planner reads constants
// through it too.
func ParseFloat(s string, bits int) (float64, error) {
	name := "double precision"
	if bits == 32 {
		name = "real"
	}
	t := strings.Trim(s, InputSpace)
	f, err := strconv.ParseFloat(t, bits)
	if err != nil && !errors.Is(err, strconv.ErrRange) || strings.Contains(t, "_") || t == "" {
		return 0, fmt.Errorf("%w: invalid input syntax for type %s: %q", ErrInvalidArgument, name, s)
	}
	lower := strings.ToLower(t)
	if err != nil || f == 0 && strings.ContainsAny(mantissa(lower), "123456789") {
		if !strings.Contains(lower, "inf") {
			return 0, fmt.Errorf("%w: %q is out of range for type %s", ErrOutOfRange, s, name)
		}
	}
	return f, nil
}

// mantissa is the part of a decimal number before its exponent.
func mantissa(s string) string {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "-0x") || strings.HasPrefix(s, "+0x") {
		if i := strings.IndexByte(s, 'p'); i >= 0 {
			return s[:i]
		}
		return s
	}
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		return s[:i]
	}
	return s
}
