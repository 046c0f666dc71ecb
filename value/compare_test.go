package value

import (
	"math"
	"testing"
)

// TestCompareFloat: PostgreSQL 15's order of double precision and real
// (SELECT ... ORDER BY x: -Infinity, -1, -0 = 0, 1, Infinity, NaN; and
// 'NaN'::float8 = 'NaN'::float8 is true).
func TestCompareFloat(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		a, b float64
		want int
	}{
		{nan, nan, 0}, {nan, inf, 1}, {inf, nan, -1}, {math.Copysign(0, -1), 0, 0},
		{-inf, -1, -1}, {1, inf, -1}, {2, 1, 1}, {1, 1, 0},
	} {
		if got := CompareFloat(c.a, c.b); got != c.want {
			t.Errorf("CompareFloat(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := CompareFloat(float32(c.a), float32(c.b)); got != c.want {
			t.Errorf("CompareFloat[float32](%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
