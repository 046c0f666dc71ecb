package value

import (
	"math"

	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// FormatFloat writes f as PostgreSQL's float8out (bits 64) or float4out
// (bits 32) does with its default extra_float_digits = 1: the shortest
// decimal that reads back to the same value, in plain notation unless the
// decimal exponent is below -4 or at least DBL_DIG (15; FLT_DIG, 6, for
// float4), where it switches to d.ddde±XX with at least two exponent
// digits. So 1234567 prints as "1234567", 1e15 as "1e+15", 0.00001 as
// "1e-05". strconv's shortest 'g' switches to exponents at 21 digits
// (1234567 as "1.234567e+06"), which is why SQL output needs this function.
//
// Every place that turns a float into text (CAST AS TEXT, the CLI, the
// sqllogictest runner) calls this, so they cannot disagree.
func FormatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	digits := 15
	if bits == 32 {
		digits = 6
	}
	// The shortest round-trip digits in exponent form tell the decimal
	// exponent without a second rounding.
	e := shortest(f, bits)
	mant, exp := splitExp(e)
	if exp < -4 || exp >= digits {
		return e
	}
	// Plain notation of the same digits: move the point exp places.
	neg := mant[0] == '-'
	if neg {
		mant = mant[1:]
	}
	ds := strings.Replace(mant, ".", "", 1)
	var out string
	switch point := exp + 1; {
	case point <= 0:
		out = "0." + strings.Repeat("0", -point) + ds
	case point >= len(ds):
		out = ds + strings.Repeat("0", point-len(ds))
	default:
		out = ds[:point] + "." + ds[point:]
	}
	if neg {
		return "-" + out
	}
	return out
}

// shortest is the shortest decimal (in 'e' form) that reads back as f and
// lies strictly inside f's rounding interval. strconv's shortest form may
// sit exactly on the interval's edge (a tie that round-half-even parsing
// resolves toward f): PostgreSQL's Ryu never emits those, so 1e23::float8
// prints as 9.999999999999999e+22 there and strconv's "1e+23" is one digit
// longer in PostgreSQL's output. Ties are rare and cheap to rule out from
// the digits alone (tieCandidate); only those get the exact check.
func shortest(f float64, bits int) string {
	e := strconv.FormatFloat(f, 'e', -1, bits)
	if !tieCandidate(e) || !onEdge(e, f, bits) {
		return e
	}
	mant, _ := splitExp(e)
	n := len(strings.TrimLeft(strings.Replace(mant, ".", "", 1), "-"))
	max := 17
	if bits == 32 {
		max = 9
	}
	for p := n; p <= max; p++ {
		c := strconv.FormatFloat(f, 'e', p-1, bits)
		if back, err := strconv.ParseFloat(c, bits); err == nil && back == f && !onEdge(c, f, bits) {
			return c
		}
	}
	return strconv.FormatFloat(f, 'e', max-1, bits)
}

// splitExp splits "d.ddde±XX" into its mantissa and decimal exponent.
func splitExp(e string) (string, int) {
	i := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	return e[:i], exp
}

// tieCandidate reports whether decimal e (strconv 'e' form) can be a
// binary fraction with at most 55 significant bits, which every midpoint
// between two adjacent floats is: D·10^E needs 5^E to fit (E ≥ 0) or
// 5^-E to divide D (E < 0).
func tieCandidate(e string) bool {
	mant, exp := splitExp(e)
	ds := strings.TrimLeft(strings.Replace(mant, ".", "", 1), "-")
	d, err := strconv.ParseUint(ds, 10, 64)
	if err != nil {
		return false
	}
	e10 := exp - (len(ds) - 1)
	if e10 >= 0 {
		return e10 <= 23 // 5^24 > 2^55
	}
	if -e10 > 27 { // 5^28 > 10^19 > D
		return false
	}
	p := uint64(1)
	for i := 0; i < -e10; i++ {
		p *= 5
	}
	return d%p == 0
}

// onEdge reports whether decimal e is exactly halfway between f and one of
// its neighbours (of precision bits).
func onEdge(e string, f float64, bits int) bool {
	v, ok := new(big.Float).SetPrec(512).SetString(e)
	if !ok {
		return false
	}
	for _, dir := range []float64{math.Inf(-1), math.Inf(1)} {
		var n float64
		if bits == 32 {
			n = float64(math.Nextafter32(float32(f), float32(dir)))
		} else {
			n = math.Nextafter(f, dir)
		}
		if math.IsInf(n, 0) {
			continue
		}
		mid := new(big.Float).SetPrec(512).SetFloat64(f)
		mid.Add(mid, new(big.Float).SetPrec(512).SetFloat64(n))
		mid.Quo(mid, big.NewFloat(2))
		if v.Cmp(mid) == 0 {
			return true
		}
	}
	return false
}

// FormatValue writes row i of a (not NULL) as PostgreSQL's text output
// for the types whose Arrow text form differs from it: floats
// (FormatFloat), dates (FormatDate), timestamps in microseconds
// (FormatTimestamp) and decimals (FormatDecimal). ok is false for any
// other type, whose Arrow ValueStr is already PostgreSQL's.
func FormatValue(a arrow.Array, i int) (string, bool) {
	switch c := a.(type) {
	case *array.Float64:
		return FormatFloat(c.Value(i), 64), true
	case *array.Float32:
		return FormatFloat(float64(c.Value(i)), 32), true
	case *array.Date32:
		return FormatDate(int32(c.Value(i))), true
	case *array.Decimal128:
		return FormatDecimal(c.Value(i), c.DataType().(*arrow.Decimal128Type).Scale), true
	case *array.Timestamp:
		if c.DataType().(*arrow.TimestampType).Unit == arrow.Microsecond {
			return FormatTimestamp(int64(c.Value(i))), true
		}
	}
	return "", false
}

// FormatBool writes b as PostgreSQL's boolout does: "t" or "f" (a
// result shown by psql; CAST(b AS text) is "true" or "false").
func FormatBool(b bool) string {
	if b {
		return "t"
	}
	return "f"
}

// Text writes row i of a (not NULL) as PostgreSQL's output function for
// its type writes it: integers in decimal (int2out, int4out, int8out),
// floats by FormatFloat, booleans by FormatBool, strings as they are, and
// FormatValue's dates, timestamps and decimals. ok is false for a type
// with no SQL text form here. The test runners, difftest and the TPC-H
// answer check render a result through it, so no two of them can print
// one value differently.
func Text(a arrow.Array, i int) (string, bool) {
	if s, ok := FormatValue(a, i); ok {
		return s, true
	}
	switch c := a.(type) {
	case *array.Int64:
		return strconv.FormatInt(c.Value(i), 10), true
	case *array.Int32:
		return strconv.FormatInt(int64(c.Value(i)), 10), true
	case *array.Int16:
		return strconv.FormatInt(int64(c.Value(i)), 10), true
	case *array.Int8:
		return strconv.FormatInt(int64(c.Value(i)), 10), true
	case *array.Uint64:
		return strconv.FormatUint(c.Value(i), 10), true
	case *array.Uint32:
		return strconv.FormatUint(uint64(c.Value(i)), 10), true
	case *array.Uint16:
		return strconv.FormatUint(uint64(c.Value(i)), 10), true
	case *array.Uint8:
		return strconv.FormatUint(uint64(c.Value(i)), 10), true
	case *array.String:
		return c.Value(i), true
	case *array.LargeString:
		return c.Value(i), true
	case *array.Boolean:
		return FormatBool(c.Value(i)), true
	}
	return "", false
}
