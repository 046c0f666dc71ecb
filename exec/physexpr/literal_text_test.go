package physexpr

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// TestLitStringIsSQL: every literal prints as the SQL text PostgreSQL
// reads back as the same value and type (issue 31 item 5): a date is not
// its day count, a string is single-quoted with its quotes doubled, a
// decimal keeps its scale, a float its shortest round-trip digits.
func TestLitStringIsSQL(t *testing.T) {
	ts := &arrow.TimestampType{Unit: arrow.Microsecond}
	for _, tc := range []struct {
		lit  Lit
		want string
	}{
		{Lit{Value: int64(-7)}, "-7"},
		{Lit{Value: int32(42)}, "42"},
		{Lit{Value: true}, "true"},
		{Lit{Value: false}, "false"},
		{Lit{Value: "x"}, "'x'"},
		{Lit{Value: "it's \"q\""}, `'it''s "q"'`},
		{Lit{Value: `a\b`}, `'a\b'`},
		{Lit{Value: ""}, "''"},
		{Lit{Value: arrow.Date32(20574), Type: arrow.FixedWidthTypes.Date32}, "DATE '2026-05-01'"},
		{Lit{Value: arrow.Date32(-719163), Type: arrow.FixedWidthTypes.Date32}, "DATE '0001-12-31 BC'"},
		{Lit{Value: arrow.Timestamp(1767225601500000), Type: ts}, "TIMESTAMP '2026-01-01 00:00:01.5'"},
		{Lit{Value: arrow.Timestamp(0), Type: ts}, "TIMESTAMP '1970-01-01 00:00:00'"},
		{Lit{Value: decimal128.FromI64(5050), Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}}, "50.50"},
		{Lit{Value: decimal128.FromI64(-5), Type: &arrow.Decimal128Type{Precision: 10, Scale: 3}}, "-0.005"},
		{Lit{Value: decimal128.FromI64(7), Type: &arrow.Decimal128Type{Precision: 38, Scale: 0}}, "7"},
		{Lit{Value: 0.1}, "0.1"},
		{Lit{Value: 1e300}, "1e+300"},
		{Lit{Value: 1.0 / 3}, "0.3333333333333333"},
		{Lit{Value: math.NaN()}, "DOUBLE PRECISION 'NaN'"},
		{Lit{Value: math.Inf(-1)}, "DOUBLE PRECISION '-Infinity'"},
		{Lit{Value: float32(0.1)}, "0.1"},
		{Lit{Value: float32(math.Inf(1))}, "REAL 'Infinity'"},
		{Lit{Value: []byte{0, 0xff}}, `BYTEA '\x00ff'`},
		{Lit{Type: arrow.FixedWidthTypes.Date32}, "NULL::date"},
		{Lit{Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}}, "NULL::numeric(10,2)"},
		{Lit{Type: arrow.Null}, "NULL"},
		{Lit{}, "NULL"},
	} {
		if got := tc.lit.String(); got != tc.want {
			t.Errorf("Lit{%#v, %v}.String() = %s, want %s", tc.lit.Value, tc.lit.Type, got, tc.want)
		}
	}
	// The lists and patterns EXPLAIN prints use the same text.
	in := In{E: Col{Name: "n", Index: 2}, List: []Lit{{Value: "a'"}, {Value: arrow.Date32(0), Type: arrow.FixedWidthTypes.Date32}}}
	if got, want := in.String(), "n@2 IN ('a''', DATE '1970-01-01')"; got != want {
		t.Errorf("In.String() = %s, want %s", got, want)
	}
	like := Like{E: Col{Name: "n", Index: 2}, Pattern: Lit{Value: "50%'"}}
	if got, want := like.String(), "n@2 LIKE '50%'''"; got != want {
		t.Errorf("Like.String() = %s, want %s", got, want)
	}
}
