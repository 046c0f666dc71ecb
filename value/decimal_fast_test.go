package value

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// DecimalFromInt's 128-bit path agrees with the exact big.Int one
// (fitDecimal) on every value, scale and precision, overflows included;
// Pow10 is a fresh copy of 10^n the caller may change.
func TestDecimalFromIntFastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ints := []int64{0, 1, -1, 9, 10, -10, 99, 1e9, -1e9, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	for range 2000 {
		ints = append(ints, r.Int64()>>r.IntN(63)*int64(1-2*r.IntN(2)))
	}
	for _, i := range ints {
		for p := int32(1); p <= MaxDecimalPrecision; p++ {
			for _, s := range []int32{0, 1, 2, p / 2, p - 1, p} {
				if s < 0 || s > p {
					continue
				}
				got, gerr := DecimalFromInt(i, p, s)
				want, werr := fitDecimal(big.NewInt(i), 0, s, p)
				if !errors.Is(gerr, werr) && (gerr != nil || werr != nil) {
					t.Fatalf("DecimalFromInt(%d, %d, %d): err %v, want %v", i, p, s, gerr, werr)
				}
				if gerr == nil && got != want {
					t.Fatalf("DecimalFromInt(%d, %d, %d) = %v, want %v", i, p, s, got.BigInt(), want.BigInt())
				}
			}
		}
	}
	for n := int32(0); n < 90; n++ {
		want := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
		got := Pow10(n)
		if got.Cmp(want) != 0 {
			t.Fatalf("Pow10(%d) = %v", n, got)
		}
		got.SetInt64(7) // the caller's copy: the table is untouched
		if Pow10(n).Cmp(want) != 0 {
			t.Fatalf("Pow10(%d) changed by its caller", n)
		}
	}
}
