package difftest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
)

// Type is a column or expression type of the generated SQL: the types
// stablerow stores (README "SQL surface").
type Type int

const (
	TInt Type = iota
	TFloat
	TText
	TBool
	TI16
	TI32
	TF32
	TVarchar
	TChar
	TDate
	TTimestamp
	TNumeric
)

var allTypes = []Type{TInt, TFloat, TText, TBool, TI16, TI32, TF32, TVarchar, TChar, TDate, TTimestamp, TNumeric}

// SQL is the type's name in CREATE TABLE and CAST, the same on both sides.
func (t Type) SQL() string {
	return [...]string{"BIGINT", "DOUBLE PRECISION", "TEXT", "BOOLEAN", "SMALLINT", "INTEGER", "REAL",
		"VARCHAR(6)", "CHAR(4)", "DATE", "TIMESTAMP", "NUMERIC(8,2)"}[t]
}

// integer reports the integer types, which mix in arithmetic and
// comparisons (PostgreSQL promotes to the wider).
func (t Type) integer() bool { return t == TInt || t == TI16 || t == TI32 }

// numeric reports the types that compare with each other.
func (t Type) numeric() bool { return t.integer() || t == TFloat || t == TF32 || t == TNumeric }

// stringy reports text, varchar(n) and char(n), which compare as text.
func (t Type) stringy() bool { return t == TText || t == TVarchar || t == TChar }

// Column of a generated table.
type Column struct {
	Name    string
	Type    Type
	NotNull bool
}

// Table is a generated table: its schema and its rows as SQL literals
// ("NULL" for a null), inserted in Batches (each INSERT a fragment on the
// stablerow side).
type Table struct {
	Name    string
	Cols    []Column
	Rows    [][]string
	Batches int  // number of INSERT statements the rows are split into
	Index   bool // CREATE INDEX on k after the first INSERT
}

// Gen draws cases from one seeded source: the same seed gives the same
// cases.
type Gen struct {
	r *rand.Rand
}

// NewGen returns a generator for seed.
func NewGen(seed uint64) *Gen {
	return &Gen{r: rand.New(rand.NewPCG(seed, 0x646966667465))} //"difftest"

}

func (g *Gen) n(k int) int            { return g.r.IntN(k) }
func (g *Gen) p(prob float64) bool    { return g.r.Float64() < prob }
func pick[T any](g *Gen, xs []T) T    { return xs[g.r.IntN(len(xs))] }
func (g *Gen) typ() Type              { return pick(g, allTypes) }
func (g *Gen) intLit() int64          { return g.intValue() }
func (g *Gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// Value pools: the edges where engines differ (int64 and float64
// extremes, int32 borders PostgreSQL's int4 literals cross, NaN, signed
// zero, infinities, subnormals, empty and non-ASCII strings).
var intPool = []int64{
	0, 1, -1, 2, 3, 5, 7, 10, -10, 42, 100, -100,
	math.MaxInt32, math.MaxInt32 + 1, math.MinInt32, math.MinInt32 - 1, 1 << 32,
	3037000499, 3037000500, // around sqrt(MaxInt64): products cross the edge
	math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1,
}

var floatPool = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.5, 1.5, 2.5, -2.25, 0.1, 0.2, 0.3, 1.0 / 3,
	1e-5, 1e-4, 123456.789, 1e15, 1e16, 123456789012345678, 1e300, -1e300,
	math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 2.2250738585072014e-308,
	9007199254740993, 9223372036854775807, -9223372036854775808, 4.5, -3.5,
	math.NaN(), math.Inf(1), math.Inf(-1),
}

var textPool = []string{
	"", "a", "b", "abc", "A", "Z", " ", "a b", "héllo", "日本語", "😀", "it's",
	"NULL", "0", "1", "-5", "1.5", "NaN", "true", "x\\y", "tab\tx",
	// Numbers as text, in the spellings PostgreSQL's int8in/float8in
	// accept (surrounding blanks, a sign, an exponent, any-case inf)
	// and some they refuse.
	" 12 ", "+7", " -3.5 ", "1e3", "-inf", "Infinity", "9223372036854775808", "1.5e400",
}

// Pools of the narrower types: their edges and one past them (an
// INSERT of one past raises on both sides), dates and timestamps around
// leap days, the epoch and the calendar's ends, and some invalid ones.
var (
	i16Pool  = []int64{0, 1, -1, 7, -100, 255, 32767, -32768, 32766, -32767, 32768, -32769}
	i32Pool  = []int64{0, 1, -1, 42, -7, 65536, 2147483647, -2147483648, 2147483646, 46341, -46341, 2147483648, -2147483649}
	f32Pool  = []string{"0", "-0", "1", "1.5", "0.1", "-2.25", "3.4028235e38", "1e-45", "16777217", "123456.79", "NaN", "Infinity", "-Infinity", "1e39", "1e-50"}
	datePool = []string{"2024-02-29", "2024-03-01", "2023-12-31", "1970-01-01", "1969-12-31", "2000-01-01", "0001-01-01",
		"9999-12-31", "1999-12-31", "2024-1-5", "20240105", "2023-02-29", "2024-13-01", "not a date"}
	// numeric(8,2): exact, rounded half away from zero, 10^6 overflows.
	numPool = []string{"0", "1", "-1", "0.5", "1.005", "-1.005", "0.125", "2.50", "123456.78", "-999999.99", "999999.995", "1000000", "0.001", "-0.005"}
	tsPool  = []string{"2024-02-29 10:11:12.5", "2024-02-29 00:00:00", "1970-01-01 00:00:00", "1969-12-31 23:59:59.999999",
		"2000-01-01 12:00:00.000001", "0001-01-01 00:00:00", "2024-01-01T08:30:00", "2024-01-01 24:00:00", "2023-12-31",
		"2024-01-01 25:00:00", "2024-02-30 00:00:00", "noon"}
)

func (g *Gen) intValue() int64 {
	if g.p(0.15) {
		return g.r.Int64() - g.r.Int64()/2
	}
	return pick(g, intPool)
}

func (g *Gen) floatValue() float64 {
	if g.p(0.15) {
		return (g.r.Float64() - 0.5) * math.Pow(10, float64(g.between(-8, 20)))
	}
	return pick(g, floatPool)
}

// floatText is f as float8in accepts it, exact (shortest round trip).
func floatText(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0 && math.Signbit(f):
		return "-0"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func quote(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

// insertLit is a value as an INSERT ... VALUES literal. Integers and
// finite floats are sometimes bare (PostgreSQL reads a bare 1.5 as numeric
// and assigns it to the float8 column; a bare -9223372036854775808 is
// numeric too), else quoted untyped literals the column's type reads.
func (g *Gen) insertLit(t Type) string {
	switch t {
	case TInt:
		return strconv.FormatInt(g.intValue(), 10)
	case TFloat:
		f := g.floatValue()
		if !math.IsNaN(f) && !math.IsInf(f, 0) && !(f == 0 && math.Signbit(f)) && g.p(0.5) {
			return floatText(f)
		}
		return quote(floatText(f))
	case TText, TVarchar, TChar:
		return quote(g.stringValue(t))
	case TNumeric:
		if g.p(0.5) {
			return pick(g, numPool) // a bare decimal constant is numeric
		}
		return quote(pick(g, numPool))
	case TI16:
		return strconv.FormatInt(pick(g, i16Pool), 10)
	case TI32:
		return strconv.FormatInt(pick(g, i32Pool), 10)
	case TF32:
		return quote(pick(g, f32Pool))
	case TDate:
		return quote(pick(g, datePool))
	case TTimestamp:
		return quote(pick(g, tsPool))
	default:
		return pick(g, []string{"true", "false"})
	}
}

// Tables draws 1..3 tables t0.. with a unique, NOT NULL bigint key k (the
// total-order tiebreaker) and 1..4 nullable columns c0.. of random types.
func (g *Gen) Tables() []*Table {
	n := g.between(1, 3)
	var ts []*Table
	for i := 0; i < n; i++ {
		t := &Table{Name: fmt.Sprintf("t%d", i), Batches: g.between(1, 2), Index: g.p(0.3)}
		t.Cols = append(t.Cols, Column{Name: "k", Type: TInt, NotNull: true})
		for c, nc := 0, g.between(1, 4); c < nc; c++ {
			t.Cols = append(t.Cols, Column{Name: fmt.Sprintf("c%d", c), Type: g.typ()})
		}
		// Keys: distinct, from the pool and a little beyond.
		seen := map[int64]bool{}
		for r, nr := 0, g.between(0, 8); r < nr; r++ {
			k := g.intValue()
			if g.p(0.6) {
				k = int64(g.between(-3, 12))
			}
			if seen[k] {
				continue
			}
			seen[k] = true
			row := []string{strconv.FormatInt(k, 10)}
			for _, c := range t.Cols[1:] {
				if g.p(0.2) {
					row = append(row, "NULL")
				} else {
					row = append(row, g.insertLit(c.Type))
				}
			}
			t.Rows = append(t.Rows, row)
		}
		ts = append(ts, t)
	}
	return ts
}
