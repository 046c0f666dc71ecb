package value

import (
	"bufio"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestAvgQuotient128AgainstPostgreSQL checks avg's quotient against
// PostgreSQL 15's numeric_div read as a double, on 3000 totals and
// counts drawn over every range of 128-bit totals and counts
// (testdata/avg_pg15.tsv).
func TestAvgQuotient128AgainstPostgreSQL(t *testing.T) {
	f, err := os.Open("testdata/avg_pg15.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows, nearest := 0, 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Split(line, "\t")
		s, ok := new(big.Int).SetString(fs[0], 10)
		if !ok {
			t.Fatalf("bad total %q", fs[0])
		}
		n, err := strconv.ParseInt(fs[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		want, err := strconv.ParseFloat(fs[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		hi, lo := split128(s)
		if got := AvgQuotient128(hi, lo, n); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%s / %d: got %v, PostgreSQL %v", fs[0], n, got, want)
		}
		if exact, _ := new(big.Rat).SetFrac(s, big.NewInt(n)).Float64(); exact != want {
			nearest++
		}
		rows++
	}
	if rows != 3000 {
		t.Fatalf("read %d rows, want 3000", rows)
	}
	// The pairs must include ones where the double nearest the exact
	// quotient is not PostgreSQL's answer, or they show nothing.
	if nearest == 0 {
		t.Fatal("no pair tells the decimal rounding from the nearest double")
	}
	t.Logf("%d of %d pairs: the nearest double to the exact quotient is not PostgreSQL's", nearest, rows)
}

// split128 is s as two's complement hi:lo.
func split128(s *big.Int) (int64, uint64) {
	m := new(big.Int).Lsh(big.NewInt(1), 128)
	u := new(big.Int).Set(s)
	if u.Sign() < 0 {
		u.Add(u, m)
	}
	lo := new(big.Int).And(u, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	hi := new(big.Int).Rsh(u, 64).Uint64()
	return int64(hi), lo
}

func BenchmarkAvgQuotient128(b *testing.B) {
	vs := []int64{1234567, 98765432101, -5, 683179138994376041}
	for i := range b.N {
		_ = AvgQuotient128(vs[i%4]>>63, uint64(vs[i%4]), 7)
	}
}

// FuzzAvgQuotient64 holds the machine-word path to the big-integer one.
func FuzzAvgQuotient64(f *testing.F) {
	for _, s := range [][2]int64{{-5, 7}, {683179138994376041, 5}, {1, 1e15}, {math.MaxInt64, 3}, {math.MinInt64 + 1, 9}, {37, 715455121031837}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, v, n int64) {
		if n <= 0 {
			return
		}
		got, ok := avgQuotient64(v, n)
		if !ok {
			return
		}
		if want := avgQuotientBig(v>>63, uint64(v), n); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%d / %d: words %v, big %v", v, n, got, want)
		}
	})
}
