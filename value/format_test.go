package value

import (
	"math"
	"strconv"
	"testing"
)

// The expected strings are what PostgreSQL 15 prints for SELECT x::float8
// (and ::float4 where bits is 32), checked by hand against psql.
func TestFormatFloatMatchesPostgres(t *testing.T) {
	cases := []struct {
		f    float64
		bits int
		want string
	}{
		{1234567, 64, "1234567"},
		{1e15, 64, "1e+15"},
		{1e14, 64, "100000000000000"},
		{123456789012345, 64, "123456789012345"},
		{1234567890123456, 64, "1.234567890123456e+15"},
		{0.00001, 64, "1e-05"},
		{0.0001, 64, "0.0001"},
		{0.1, 64, "0.1"},
		{-2.5, 64, "-2.5"},
		{1.0 / 3, 64, "0.3333333333333333"},
		{math.MaxFloat64, 64, "1.7976931348623157e+308"},
		{5e-324, 64, "5e-324"},
		{math.NaN(), 64, "NaN"},
		{math.Inf(1), 64, "Infinity"},
		{math.Inf(-1), 64, "-Infinity"},
		{0, 64, "0"},
		{math.Copysign(0, -1), 64, "-0"},
		{9007199254740993, 64, "9.007199254740992e+15"},
		{-4.1152597575716944e+16, 64, "-4.1152597575716944e+16"},
		{1e23, 64, "9.999999999999999e+22"},
		{1234567, 32, "1.234567e+06"},
		{123456, 32, "123456"},
		{float64(float32(0.1)), 32, "0.1"},
	}
	for _, c := range cases {
		if got := FormatFloat(c.f, c.bits); got != c.want {
			t.Errorf("FormatFloat(%v, %d) = %q, want %q", c.f, c.bits, got, c.want)
		}
	}
}

// Whatever the notation, the text reads back to the same value.
func FuzzFormatFloatRoundTrips(f *testing.F) {
	for _, v := range []float64{0, 1, 1e15, 1e-5, 1234567, math.MaxFloat64, 5e-324} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		s := FormatFloat(v, 64)
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != v {
			t.Fatalf("%v -> %q -> %v, %v", v, s, back, err)
		}
	})
}
