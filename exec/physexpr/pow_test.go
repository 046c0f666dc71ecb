package physexpr

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestPowCorrectlyRounded: integer powers against exact rational
// arithmetic (x^n as a big.Rat, rounded once), the oracle for rounding.
func TestPowCorrectlyRounded(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		x := (r.Float64() + 0.01) * math.Pow(10, float64(r.IntN(6)-3))
		if r.IntN(3) == 0 {
			x = -x
		}
		n := r.IntN(61) - 30
		got, err := power(x, float64(n))
		exact := new(big.Rat).SetInt64(1)
		bx := new(big.Rat).SetFloat64(x)
		for k := 0; k < abs(n); k++ {
			exact.Mul(exact, bx)
		}
		if n < 0 {
			exact.Inv(exact)
		}
		want, _ := exact.Float64()
		if err != nil || got != want {
			t.Fatalf("power(%v, %d) = %v, %v; exact %v", x, n, got, err, want)
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestPowMatchesPostgreSQL: PostgreSQL 15's answers (glibc pow), where
// math.Pow is an ulp off.
func TestPowMatchesPostgreSQL(t *testing.T) {
	for _, c := range []struct{ x, y, want float64 }{
		{0.3333333333333333, -3, 27.000000000000004},
		{150.850023075328, 9.056068382391224, 5.358656810148286e+19},
		{337.98034793818505, -2.4797538934090326, 5.357616014139054e-07},
		{548.5745765247577, -7.991174849472898, 1.2891063715743595e-22},
		{123456.789, 2.5, 5355344863124.801},
		{710.3422406322273, -26.21598864987404, 1.7618003511895228e-75},
		{597.8618573988696, 13.726790655186285, 1.2996265059397655e+38},
		{-2, 3, -8},
		// Exponents far beyond 2^20: 1 and -1 stay themselves, bases near
		// 1 stay finite (PostgreSQL: power(1, 1.2345678901234568e17) = 1).
		{1, 1.2345678901234568e17, 1},
		{-1, 123456789012345681, 1}, // an even double
		{-1, 9007199254740991, -1},
		{1 + 0x1p-52, 0x1p52, 2.718281828459045},
		{1 - 0x1p-53, 0x1p62, 4.377491037052927e-223},
		{10, 1e17, math.Inf(1)},
		{-2, -1075, math.Copysign(0, -1)}, // underflow: an error in power
	} {
		got := pow(c.x, c.y)
		if got != c.want || math.Signbit(got) != math.Signbit(c.want) {
			t.Errorf("pow(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}
