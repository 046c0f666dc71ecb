package difftest

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/value"
)

// This file is the one place where the two sides' answers are brought to
// a common form before they are compared. Each normalization, with its
// reason:
//
//  1. Values compare as PostgreSQL's text output. stablerow's Arrow values
//     are rendered here as PostgreSQL's output functions would write them;
//     PostgreSQL's are taken as the server sent them (simple protocol, text
//     format), untouched.
//  2. Booleans: PostgreSQL's boolout writes t and f; an Arrow boolean is
//     rendered as t/f. Same value, two spellings.
//  3. Floats: rendered by value.FormatFloat, stablerow's one float-to-text
//     path, which is specified as float8out with extra_float_digits = 1 (the
//     server default since PostgreSQL 12: shortest round trip, NaN,
//     Infinity). The harness sets extra_float_digits = 1 on its session so
//     a server configured otherwise cannot make them differ.
//  4. Types compare by class: int (PostgreSQL int2/int4/int8; Arrow
//     int32/int64/uint64), float (float4/float8), text, bool. stablerow has
//     one integer type, bigint: PostgreSQL types a small literal or an
//     ARRAY[1, 2] element or generate_series(1, 3) as integer, the same
//     values. Any other PostgreSQL type (numeric, ...) is its own class and
//     so a divergence: the generator never asks for one.
//  5. Column names are not compared: PostgreSQL names an unnamed
//     expression ?column? or after its function, stablerow by its own
//     rules, and no client of the differential test reads them.
//  6. Text order: the server is initialized with --no-locale (C
//     collation), so text compares bytewise as Go strings do; under a
//     linguistic collation ORDER BY on text would differ by design.
//
//  7. numeric results of aggregates: PostgreSQL's sum(bigint) and
//     avg(bigint) are numeric; stablerow's are bigint (exact, or the
//     error of the known divergence below) and double precision (the
//     exact quotient rounded once). A numeric column of PostgreSQL's meets
//     an int column of stablerow's as int, compared as text (a numeric of
//     scale 0 prints as the integer does), and a float column as float,
//     PostgreSQL's numeric text read as the nearest double and printed by
//     value.FormatFloat (its 16 or more fractional digits pin that double).
//     The generator asks for numeric nowhere else (see genagg.go).
//     avg's quotient has only 16 significant digits (select_div_scale:
//     15446.333333333333, whose nearest double is not the exact
//     quotient's 15446.333333333334): a PostgreSQL value of 16 or more
//     significant digits whose nearest double none of stablerow's values
//     in the column is takes the text of the closest of them that equals
//     it when rounded to that many digits.
//  8. numeric quotients (numeric / numeric, avg(numeric)): PostgreSQL
//     gives each value its own scale (select_div_scale: 16 significant
//     digits, at least the operands' scales); stablerow's column has one,
//     max(s1, s2, 20) for /, max(s, 16) for avg, each value rounded where
//     PostgreSQL rounds it, or at the column's scale when that is
//     coarser, and padded with zeros (exec/physexpr/numdiv.go). A
//     stablerow numeric column of scale 16 or more is such a quotient
//     (the generator's other numerics have a few digits): both sides
//     compare by value, trailing fractional zeros trimmed, and a
//     PostgreSQL value of more than that scale's digits (a quotient below
//     about 1e-4, a mean below about 1) is first rounded, half away from
//     zero, to it: the documented difference. Every digit the column
//     holds is compared. (stablerow rounds the exact quotient once, this
//     rounds PostgreSQL's rounded one again: they differ only where
//     PostgreSQL rounded its digits past the column's scale up to exactly
//     5 then zeros; rare, and then reported, never hidden.)
//
// knownDivergences lists behaviours that differ and are not bugs.

// TypeClass is a normalized column type (see 4 above).
type TypeClass string

const (
	ClassInt   TypeClass = "int"
	ClassFloat TypeClass = "float"
	ClassText  TypeClass = "text"
	ClassBool  TypeClass = "bool"
	// date and timestamp (without time zone) compare by their text too,
	// but a date is never a timestamp.
	ClassDate      TypeClass = "date"
	ClassTimestamp TypeClass = "timestamp"
)

// pgClass maps a PostgreSQL type OID to its class.
func pgClass(oid uint32) TypeClass {
	switch oid {
	case 20, 21, 23: // int8, int2, int4
		return ClassInt
	case 700, 701: // float4, float8
		return ClassFloat
	case 25, 1043, 1042: // text, varchar, bpchar
		return ClassText
	case 16:
		return ClassBool
	case 1700:
		return "numeric"
	case 1082:
		return ClassDate
	case 1114:
		return ClassTimestamp
	}
	return TypeClass(fmt.Sprintf("oid %d", oid))
}

// arrowClass maps an Arrow type to its class.
func arrowClass(t arrow.DataType) TypeClass {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return ClassInt
	case arrow.FLOAT32, arrow.FLOAT64:
		return ClassFloat
	case arrow.STRING, arrow.LARGE_STRING:
		return ClassText
	case arrow.BOOL:
		return ClassBool
	case arrow.DATE32:
		return ClassDate
	case arrow.TIMESTAMP:
		return ClassTimestamp
	case arrow.DECIMAL128:
		return "numeric"
	}
	return TypeClass("arrow " + t.String())
}

// numericAsStablerow applies normalization 7 to PostgreSQL's outcome.
func numericAsStablerow(pg, sr *Outcome) {
	if pg.Cols == nil || len(pg.Cols) != len(sr.Cols) {
		return
	}
	for c, cl := range pg.Cols {
		if cl != "numeric" {
			continue
		}
		if scale, ok := quotientScale(sr, c); ok {
			trimQuotients(pg, sr, c, scale)
			continue
		}
		switch sr.Cols[c] {
		case ClassInt:
			pg.Cols[c] = ClassInt
		case ClassFloat:
			pg.Cols[c] = ClassFloat
			for _, r := range pg.Rows {
				if r[c] == nil {
					continue
				}
				if f, err := strconv.ParseFloat(*r[c], 64); err == nil {
					// The nearest double when stablerow has it; else the
					// stablerow value closest to the rounded digits. Any
					// value within the bound would do for one row, but
					// another row's can be nearer still (seed 20261234
					// case 44360: ...896, half-way, read as another
					// row's ...888 and not as its own ...904).
					t := value.FormatFloat(f, 64)
					if !columnHas(sr, c, t) {
						if v, ok := sameAtPGDigits(*r[c], sr, c); ok {
							t = v
						}
					}
					r[c] = &t
				}
			}
		}
	}
}

// quotientScale is the scale of stablerow's numeric column c when it is
// 16 or more (normalization 8).
func quotientScale(sr *Outcome, c int) (int, bool) {
	if sr.Cols[c] != "numeric" {
		return 0, false
	}
	for _, r := range sr.Rows {
		if r[c] == nil {
			continue
		}
		_, frac, _ := strings.Cut(*r[c], ".")
		return len(frac), len(frac) >= minQuotientScale
	}
	return 0, false
}

// minQuotientScale is the least scale of a numeric quotient's column:
// avg's (physexpr.DecimalAvgScale of a scale up to 16).
const minQuotientScale = 16

// trimQuotients applies normalization 8 to column c of both outcomes.
func trimQuotients(pg, sr *Outcome, c, scale int) {
	trim := func(s string) string {
		if i, f, ok := strings.Cut(s, "."); ok {
			if f = strings.TrimRight(f, "0"); f != "" {
				return i + "." + f
			}
			s = i
		}
		if s == "-0" {
			return "0"
		}
		return s
	}
	for _, r := range pg.Rows {
		if r[c] == nil {
			continue
		}
		v := *r[c]
		if _, f, _ := strings.Cut(v, "."); len(f) > scale {
			if d, err := value.ParseDecimal(v, value.MaxDecimalPrecision, int32(scale)); err == nil {
				v = value.FormatDecimal(d, int32(scale)) // half away from zero
			}
		}
		v = trim(v)
		r[c] = &v
	}
	for _, r := range sr.Rows {
		if r[c] != nil {
			v := trim(*r[c])
			r[c] = &v
		}
	}
}

// pgText renders row i of an Arrow array as PostgreSQL's text output
// (value.Text, the one place stablerow writes it: booleans t/f as
// boolout, floats by value.FormatFloat); nil for NULL.
func pgText(a arrow.Array, i int) (*string, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	s, ok := value.Text(a, i)
	if !ok {
		return nil, fmt.Errorf("difftest: no PostgreSQL text form for Arrow type %s", a.DataType())
	}
	return &s, nil
}

// KnownDivergence is a behaviour in which stablerow and PostgreSQL differ
// by design, not by a bug. Match sees the divergence and may run another
// statement on stablerow (again), on the same data, to confirm it.
type KnownDivergence struct {
	Name   string
	Reason string
	Match  func(d *Divergence, again func(sql string) *Outcome) bool
}

// knownDivergences is deliberately short: every entry is a documented
// difference of dialect, never a way to silence a bug (open bugs are
// reported; see open.go for the opt-in skip list).
var knownDivergences = []KnownDivergence{
	{
		Name: "sum of bigint beyond bigint",
		Reason: "PostgreSQL's sum(bigint) is numeric and holds any total; stablerow's is bigint, summed " +
			"exactly in 128 bits, and raises 'bigint out of range' when the total leaves bigint instead " +
			"of returning a wrong value (the documented choice of issue 18)",
		Match: func(d *Divergence, _ func(string) *Outcome) bool {
			return d.PG.Err == nil && d.SR.Err != nil && strings.Contains(d.SR.Err.Error(), "bigint out of range (sum)")
		},
	},
	{
		Name: "numeric scale of a mixed-scale CASE/COALESCE/GREATEST/LEAST",
		Reason: "PostgreSQL's numeric values carry their own scale, so CASE, COALESCE, GREATEST and LEAST " +
			"over numerics of different scales return each value with its own digits; stablerow's numeric " +
			"column has one scale, the widest, and pads the others with zeros (README's SQL table). " +
			"Matched only where every differing value is PostgreSQL's padded with fractional zeros",
		Match: func(d *Divergence, _ func(string) *Outcome) bool {
			low := strings.ToLower(d.SQL)
			if !d.IsQuery || d.PG.Err != nil || d.SR.Err != nil || len(d.PG.Rows) != len(d.SR.Rows) ||
				!(strings.Contains(low, "coalesce(") || strings.Contains(low, "case ") ||
					strings.Contains(low, "greatest(") || strings.Contains(low, "least(")) {
				return false
			}
			return differOnlyBy(pairedRows(d, trimFractionZeros), zeroPadded)
		},
	},
	{
		Name: "numeric beyond 38 digits",
		Reason: "PostgreSQL's numeric has no digit limit; stablerow's is decimal128, and an operation whose " +
			"exact result needs more than 38 digits at its scale raises 'numeric field overflow' (README's " +
			"SQL table) instead of returning a rounded or wrapped value. Matched only where stablerow's " +
			"error names the operation and its two plain operands and their exact result, recomputed " +
			"here, needs more than 38 digits (numeric38.go)",
		Match: func(d *Divergence, _ func(string) *Outcome) bool {
			return d.PG.Err == nil && d.SR.Err != nil && beyond38Digits(d.SR.Err.Error())
		},
	},
	{
		Name: "sign of zero in a group key",
		Reason: "-0 and 0 are one group (float8eq), and a group holding both prints the value of the row " +
			"the grouping met first, in an input order neither side defines (PostgreSQL's changes with its " +
			"plan: a CTE's HashAggregate hands rows on in hash order). Matched only where the answers are " +
			"equal once -0 reads as 0 in the float key columns, and stablerow's ungrouped rows hold both " +
			"sides' printed keys (groupkey.go)",
		Match: zeroSignInGroupKey,
	},
	{
		Name: "min/max as LIMIT 1",
		Reason: "PostgreSQL may plan min/max/bool_and/bool_or without GROUP BY over one table as " +
			"ORDER BY arg LIMIT 1 subqueries (preprocess_minmax_aggregates, when cheaper and a path gives " +
			"the order: with the session's index paths off, a constant argument's Seq Scan), which stop at " +
			"the first qualifying row in its physical order; stablerow evaluates the WHERE a batch at a time. " +
			"Matched only for that shape, where PostgreSQL's values show a row qualified and stablerow " +
			"raises counting the WHERE's rows (minmax.go)",
		Match: minMaxAsLimit1,
	},
	{
		Name: "last bit of power()",
		Reason: "PostgreSQL's power(double precision, double precision) is the C library's pow, which glibc " +
			"does not round correctly where x^y is exactly halfway between two doubles; stablerow's is " +
			"Go's math.Pow, which rounds such a tie to even. Matched only where power or pow is called and " +
			"every differing value is one ulp from PostgreSQL's (libm.go)",
		Match: powerLastBit,
	},
}

// pairedRows is d with each side's rows sorted by their text under canon
// when the statement leaves the row order open, so that differOnlyBy
// pairs the rows canon makes alike: a padded value can sort apart from
// PostgreSQL's (-999999.99 and -999999.9900 around -2499999.9750; seed
// 781 case 10980). d itself when the order is the statement's.
func pairedRows(d *Divergence, canon func(string) string) *Divergence {
	if d.Ordered {
		return d
	}
	sorted := func(o *Outcome) *Outcome {
		keyed := make([]string, len(o.Rows))
		idx := make([]int, len(o.Rows))
		for i, r := range o.Rows {
			cells := make([]*string, len(r))
			for c, v := range r {
				if v != nil {
					k := canon(*v)
					cells[c] = &k
				}
			}
			keyed[i], idx[i] = rowKey(cells), i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(keyed[a], keyed[b]) })
		c := *o
		c.Rows = make([][]*string, len(idx))
		for i, j := range idx {
			c.Rows[i] = o.Rows[j]
		}
		return &c
	}
	c := *d
	c.PG, c.SR = sorted(d.PG), sorted(d.SR)
	return &c
}

// trimFractionZeros is a numeric text without the zeros that end its
// fraction (and without the point if nothing is left after it); any
// other text as it is.
func trimFractionZeros(v string) string {
	if !isNumericText(v) || !strings.Contains(v, ".") {
		return v
	}
	return strings.TrimSuffix(strings.TrimRight(v, "0"), ".")
}

// differOnlyBy: the two answers have the same rows, cell for cell, but
// for some cells, at least one, whose texts alike says are alike
// (PostgreSQL's first, stablerow's second); NULLs match only NULLs.
func differOnlyBy(d *Divergence, alike func(pg, sr string) bool) bool {
	differ := false
	for i, pr := range d.PG.Rows {
		sr := d.SR.Rows[i]
		if len(pr) != len(sr) {
			return false
		}
		for c := range pr {
			switch {
			case pr[c] == nil || sr[c] == nil:
				if pr[c] != sr[c] {
					return false
				}
			case *pr[c] == *sr[c]:
			case alike(*pr[c], *sr[c]):
				differ = true
			default:
				return false
			}
		}
	}
	return differ
}

func hasColumn(e *Expr) bool {
	if e.Op == "col" {
		return true
	}
	for _, a := range e.Args {
		if hasColumn(a) {
			return true
		}
	}
	return false
}

// constRaising: an expression that can raise and that PostgreSQL may fold
// to a constant while planning (mayFoldConst).
func constRaising(e *Expr) bool { return e.Raises && mayFoldConst(e) }

// mayFoldConst: PostgreSQL's eval_const_expressions may reduce e to a
// constant. Beyond expressions without columns, it simplifies CASE (a
// constant TRUE condition selects its arm, constant FALSE or NULL ones
// drop out), COALESCE (a constant first argument is the value) and AND/OR
// (a constant FALSE/TRUE operand decides): CAST(CASE WHEN TRUE THEN 'A'
// ELSE a.c END AS BIGINT) raises while planning. Conservative: a constant
// condition or operand counts as deciding whatever its value.
func mayFoldConst(e *Expr) bool {
	switch e.Op {
	case "col":
		return false
	case "lit":
		return true
	case "case":
		n := len(e.Args)
		if e.Text == "else" {
			n--
		}
		allConst := true
		for i := 0; i+1 < n; i += 2 {
			c := mayFoldConst(e.Args[i])
			if c && mayFoldConst(e.Args[i+1]) {
				return true
			}
			allConst = allConst && c
		}
		return allConst && (e.Text != "else" || mayFoldConst(e.Args[n]))
	case "coalesce":
		return mayFoldConst(e.Args[0])
	case "and", "or":
		for _, a := range e.Args {
			if mayFoldConst(a) {
				return true
			}
		}
		return false
	}
	for _, a := range e.Args {
		if !mayFoldConst(a) {
			return false
		}
	}
	return true
}

func isNullLit(e *Expr) bool { return e.Op == "lit" && strings.HasPrefix(e.Text, "CAST(NULL ") }

// zeroPadded reports whether wide is narrow with more fractional zeros
// (0.13 and 0.1300, 5 and 5.00): the same numeric value at a wider scale.
func zeroPadded(narrow, wide string) bool {
	if len(wide) <= len(narrow) || !strings.HasPrefix(wide, narrow) {
		return false
	}
	rest := wide[len(narrow):]
	if !strings.Contains(narrow, ".") {
		if rest[0] != '.' {
			return false
		}
		rest = rest[1:]
	}
	return rest != "" && strings.Trim(rest, "0") == "" && isNumericText(narrow)
}

// isNumericText: an optional sign, digits, at most one point.
func isNumericText(v string) bool {
	v = strings.TrimPrefix(v, "-")
	if v == "" {
		return false
	}
	point := false
	for _, r := range v {
		switch {
		case r == '.' && !point:
			point = true
		case r < '0' || r > '9':
			return false
		}
	}
	return true
}

// sameAtPGDigits is the text of a value of stablerow's float column c
// that PostgreSQL's numeric text pg (16 or more significant digits) may
// be the rounding of: the double and pg are no further apart than half a
// unit of pg's last digit and half the double's ulp, so one quotient can
// round to both (normalization 7).
func sameAtPGDigits(pg string, sr *Outcome, c int) (string, bool) {
	digits := strings.TrimLeft(strings.ReplaceAll(strings.TrimLeft(pg, "+-"), ".", ""), "0")
	if len(digits) < 16 || strings.ContainsAny(pg, "eEnN") {
		return "", false
	}
	want, ok := new(big.Float).SetPrec(256).SetString(pg)
	if !ok {
		return "", false
	}
	frac := 0
	if _, f, ok := strings.Cut(pg, "."); ok {
		frac = len(f)
	}
	half, _ := new(big.Float).SetPrec(256).SetString("0.5e-" + strconv.Itoa(frac))
	var best string
	var bestDiff *big.Float
	for _, r := range sr.Rows {
		if c >= len(r) || r[c] == nil {
			continue
		}
		f, err := strconv.ParseFloat(*r[c], 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			continue
		}
		ulp := math.Abs(math.Nextafter(f, math.Inf(1)) - f)
		bound := new(big.Float).SetPrec(256).Add(half, big.NewFloat(ulp/2))
		diff := new(big.Float).SetPrec(256).Sub(want, big.NewFloat(f))
		if diff.Abs(diff).Cmp(bound) <= 0 && (bestDiff == nil || diff.Cmp(bestDiff) < 0) {
			best, bestDiff = *r[c], diff
		}
	}
	return best, bestDiff != nil
}

// columnHas: some row of sr has the text v in column c.
func columnHas(sr *Outcome, c int, v string) bool {
	for _, r := range sr.Rows {
		if c < len(r) && r[c] != nil && *r[c] == v {
			return true
		}
	}
	return false
}
