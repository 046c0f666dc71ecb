package difftest

import (
	"math"
	"strconv"
	"strings"
)

// powerLastBit matches the known divergence "last bit of power()": each
// pair of values that differ is a pair of adjacent doubles, and the
// statement calls power (or pow). PostgreSQL's dpow calls the C
// library's pow, whose result glibc bounds by about 0.52 ulp but does not
// round correctly: where x^y falls exactly halfway between two doubles,
// 1000000008^2 = 1000000016000000064 being 64 past one double and 64
// short of the next, glibc returns the upper, 1.0000000160000001e+18,
// and Go's math.Pow (exact products for an integral exponent, rounded
// once to even) the lower, 1.000000016e+18 (seed 20261230 case 262745).
// Neither engine can take the other's libm; a last-bit difference
// anywhere else, or one more than an ulp wide, is still a divergence.
func powerLastBit(d *Divergence, _ func(string) *Outcome) bool {
	low := strings.ToLower(d.SQL)
	if !d.IsQuery || d.PG.Err != nil || d.SR.Err != nil || len(d.PG.Rows) != len(d.SR.Rows) ||
		!(strings.Contains(low, "power(") || strings.Contains(low, "pow(")) {
		return false
	}
	return differOnlyBy(d, adjacentDoubles) // normalize.go
}

// adjacentDoubles reports two finite doubles, written as text, one ulp
// apart.
func adjacentDoubles(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 != nil || err2 != nil || math.IsInf(x, 0) || math.IsInf(y, 0) || x == y {
		return false
	}
	return math.Nextafter(x, y) == y
}
