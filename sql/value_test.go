package sql

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/substrait-io/substrait-go/v8/expr"
)

// TestFoldArithmeticInt checks integer folding against math/big: a fold
// happens exactly when the true result fits in int64 (and the divisor is
// not zero), and then equals it.
func TestFoldArithmeticInt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	edges := []int64{0, 1, -1, 2, -2, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, 1 << 32, -(1 << 32)}
	pick := func() int64 {
		if r.IntN(3) == 0 {
			return edges[r.IntN(len(edges))]
		}
		return int64(r.Uint64()) >> r.IntN(64)
	}
	lo, hi := big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
	for range 20000 {
		x, y := pick(), pick()
		for _, op := range []string{"+", "-", "*", "/"} {
			bx, by := big.NewInt(x), big.NewInt(y)
			want := new(big.Int)
			ok := true
			switch op {
			case "+":
				want.Add(bx, by)
			case "-":
				want.Sub(bx, by)
			case "*":
				want.Mul(bx, by)
			case "/":
				if y == 0 {
					ok = false
				} else {
					want.Quo(bx, by) // truncated, like Postgres
				}
			}
			ok = ok && want.Cmp(lo) >= 0 && want.Cmp(hi) <= 0
			got, folded := foldArithmetic(op, expr.NewPrimitiveLiteral(x, false), expr.NewPrimitiveLiteral(y, false))
			if folded != ok {
				t.Fatalf("%d %s %d: folded=%v, want %v", x, op, y, folded, ok)
			}
			if ok && got.(*expr.PrimitiveLiteral[int64]).Value != want.Int64() {
				t.Fatalf("%d %s %d = %v, want %v", x, op, y, got, want)
			}
		}
	}
}
