package difftest

import "testing"

// TestPowerLastBit: seed 20261230 case 262745's answers (glibc's pow and
// Go's math.Pow on either side of the exact tie 1000000008^2) match the
// known divergence; a two-ulp difference, a difference without power,
// and one beside a real difference in another column do not.
func TestPowerLastBit(t *testing.T) {
	rows := func(vs ...string) *Outcome {
		o := &Outcome{Cols: []TypeClass{ClassFloat}}
		for _, v := range vs {
			o.Rows = append(o.Rows, []*string{s(v)})
		}
		return o
	}
	const power = "SELECT power(CAST(a.k AS DOUBLE PRECISION), 2) FROM t1 AS a"
	for _, c := range []struct {
		name   string
		sql    string
		pg, sr *Outcome
		want   bool
	}{
		{"case 262745", power, rows("1.000000014e+18", "1.0000000160000001e+18"), rows("1.000000014e+18", "1.000000016e+18"), true},
		{"two ulps", power, rows("1.0000000160000002e+18"), rows("1.000000016e+18"), false},
		{"no power", "SELECT a.f * a.f FROM t1 AS a", rows("1.0000000160000001e+18"), rows("1.000000016e+18"), false},
		{"equal", power, rows("4"), rows("4"), false},
		{"another value differs", power, rows("1.0000000160000001e+18", "5"), rows("1.000000016e+18", "6"), false},
		{"a row missing", power, rows("1.0000000160000001e+18", "5"), rows("1.000000016e+18"), false},
	} {
		d := &Divergence{SQL: c.sql, IsQuery: true, PG: c.pg, SR: c.sr}
		if got := powerLastBit(d, nil); got != c.want {
			t.Errorf("%s: powerLastBit = %v, want %v", c.name, got, c.want)
		}
	}
}
