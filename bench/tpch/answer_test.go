package tpch

import (
	"math/big"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/stretchr/testify/require"
)

// TestDiff: numbers agree to the coarser printed scale, text exactly, and
// row counts and positions matter.
func TestDiff(t *testing.T) {
	for _, c := range []struct {
		a, b string
		eq   bool
	}{
		{"0.05", "0.05", true},
		{"0.05", "0.049999999999", true}, // a double average against a numeric of scale 2
		{"0.05", "0.06", false},
		{"1.5000", "1.5", true},
		{"1.5001", "1.5", true}, // 1.5 is printed to one digit: 1.5001 rounds to it
		{"1.5001", "1.5000", false},
		{"1289198.2630", "1289198.263", true},
		{"756414.1867", "1289198.2630", false},
		{"10", "10.00", true}, // an integer against a numeric
		{"10", "10.4", false}, // a whole double against 10.4: no rounding implied
		{"10", "10.0000000000001", true},
		{"0.032", "0.0320000000001", true},
		{"BRAZIL", "BRAZIL", true},
		{"BRAZIL                   ", "BRAZIL", true}, // CHAR(25): stablerow pads, DuckDB does not
		{"Brand#12", "Brand#13", false},
		{"NULL", "0", false},
		{"1998-09-02", "1998-09-02", true},
	} {
		require.Equal(t, c.eq, cellEqual(c.a, c.b), "%s vs %s", c.a, c.b)
	}
	a := &Answer{Columns: []string{"k", "v"}, Rows: [][]string{{"1", "2.50"}, {"2", "x"}}}
	require.Empty(t, Diff(a, &Answer{Rows: [][]string{{"1", "2.5"}, {"2", "x"}}}))
	require.Contains(t, Diff(a, &Answer{Rows: [][]string{{"2", "x"}, {"1", "2.50"}}}), "row 1")
	require.Contains(t, Diff(a, &Answer{Rows: [][]string{{"1", "2.50"}}}), "2 rows, want 1")
	require.Contains(t, Diff(a, &Answer{Columns: []string{"k", "v"}, Rows: [][]string{{"1", "2.50"}, {"2", "y"}}}), "column 2 (v)")
}

// TestGoTextAsPostgres: DuckDB's Go values are written as PostgreSQL's
// output of the same SQL value, as stablerow's are (value.Text), so the
// two answers meet in one form: a float as float8out (not strconv's
// exponent form from 21 digits), a numeric with every digit of its
// scale, a date as date_out, a boolean as boolout.
func TestGoTextAsPostgres(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{1234567.0, "1234567"},
		{float32(0.1), "0.1"},
		{duckdb.Decimal{Width: 4, Scale: 2, Value: big.NewInt(-5)}, "-0.05"},
		{time.Date(1998, 12, 1, 0, 0, 0, 0, time.UTC), "1998-12-01"},
		{time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), "1969-12-31"},
		{true, "t"},
		{int64(-7), "-7"},
		{nil, "NULL"},
	} {
		got, err := goText(c.v)
		require.NoError(t, err)
		require.Equal(t, c.want, got, "%#v", c.v)
	}
}
