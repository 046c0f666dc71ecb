package exec

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/value"
)

// TestNumericStatsFinal64: the 128-bit finish equals math/big's
// (numericStatsFinal, held to PostgreSQL by TestNumericStatsPostgres) for
// the four functions over random groups of integers and numerics of
// scales 0 to 6, small and near the fast path's limits; and it takes
// most of them (a fast path that never applies would pass otherwise).
func TestNumericStatsFinal64(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 1))
	kinds := []statsKind{{sample: true, sqrt: true}, {sample: true}, {sqrt: true}, {}}
	handled := 0
	const cases = 20000
	for c := range cases {
		s := int32(r.IntN(7))
		n := 1 + r.IntN(40)
		span := []int64{10, 1000, 1_000_000, 1_000_000_000}[r.IntN(4)]
		var sx value.Int192
		var sxx uint320
		for range n {
			v := decimal128.FromI64(r.Int64N(2*span+1) - span)
			sx.Add(v)
			sxx.addSquare(v)
		}
		to := physexpr.DecimalDivScale(s, 0)
		k := kinds[c%len(kinds)]
		want, wok, werr := numericStatsFinal(k, s, to, int64(n), sx.BigInt(), sxx.bigInt())
		got, gok, h := numericStatsFinal64(k, s, to, int64(n), sx, sxx)
		if !h {
			continue
		}
		handled++
		if werr != nil || gok != wok || got != want {
			t.Fatalf("%+v s=%d n=%d sx=%s sxx=%s: fast %s (%v), big %s (%v, %v)", k, s, n, sx.BigInt(), sxx.bigInt(), got.BigInt(), gok, want.BigInt(), wok, werr)
		}
	}
	if handled < cases/2 {
		t.Fatalf("the fast path took %d of %d groups", handled, cases)
	}
}

// TestIsqrt128: floor square roots of random values up to 2^127 and of
// squares and their neighbours, against math/big.
func TestIsqrt128(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	check := func(hi, lo uint64) {
		v := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
		v.Or(v, new(big.Int).SetUint64(lo))
		want := new(big.Int).Sqrt(v)
		got, ok := isqrt128(hi, lo)
		if !ok || !want.IsUint64() || got != want.Uint64() {
			t.Fatalf("isqrt(%s) = %d (%v), want %s", v, got, ok, want)
		}
	}
	for range 100000 {
		bitsLen := r.IntN(127) + 1
		hi, lo := r.Uint64(), r.Uint64()
		if bitsLen <= 64 {
			hi, lo = 0, lo>>(64-bitsLen)
		} else {
			hi >>= 128 - bitsLen
		}
		check(hi, lo)
	}
	for _, x := range []uint64{1, 2, 3, 1 << 32, 1<<63 - 1, 13043817825332782212} {
		sq := new(big.Int).Mul(new(big.Int).SetUint64(x), new(big.Int).SetUint64(x))
		for _, d := range []int64{-1, 0, 1} {
			v := new(big.Int).Add(sq, big.NewInt(d))
			if v.BitLen() > 127 {
				continue
			}
			check(new(big.Int).Rsh(v, 64).Uint64(), new(big.Int).And(v, new(big.Int).SetUint64(^uint64(0))).Uint64())
		}
	}
}

// TestRoundHalfUp128: against roundHalfUp (math/big), ties included.
func TestRoundHalfUp128(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for i := range 50000 {
		d := int32(r.IntN(20))
		v := decimal128.New(int64(r.Uint64()>>(1+r.IntN(63))), r.Uint64())
		if i%3 == 0 { // a tie: ...5 followed by zeros
			p := value.Pow10x128(d)
			q := decimal128.FromU64(r.Uint64() >> 8)
			if d > 0 {
				v, _ = value.Mul128(q, p)
				half, _ := p.Div(decimal128.FromI64(2))
				v = v.Add(half)
			}
		}
		want := roundHalfUp(v.BigInt(), d)
		got, ok := roundHalfUp128(v, d)
		if !ok || got.BigInt().Cmp(want) != 0 {
			t.Fatalf("round(%s, %d) = %s (%v), want %s", v.BigInt(), d, got.BigInt(), ok, want)
		}
	}
}
