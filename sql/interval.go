package sql

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Interval literals exist here only as the right operand of date and
// timestamp arithmetic (TPC-H's date '1998-12-01' - interval '90' day):
// interval is not a column type. PostgreSQL's rules:
//
//	date ± interval       timestamp (the date at midnight, moved)
//	timestamp ± interval  timestamp
//	interval + date       the same as date + interval
//
// The interval's months apply first, clamping the day to the month's
// last (date '2024-01-31' + interval '1' month is 2024-02-29), then its
// days, then its hours and smaller units. A constant date or timestamp is
// folded into a timestamp literal; a date column moved by whole days is
// date_pli cast to timestamp; months on a column, and hours and smaller
// units on one, are refused. (generate_series takes an interval literal
// of any of these units as its step: sql/lateralfn.go.)

// interval is a parsed interval literal: PostgreSQL's three fields.
type interval struct{ months, days, us int64 }

// The typmod masks of interval 'n' year / month / day (PostgreSQL's
// INTERVAL_MASK of YEAR, MONTH, DAY).
const (
	maskMonth = 1 << 1
	maskYear  = 1 << 2
	maskDay   = 1 << 3
)

// intervalLiteral recognizes interval 'text' [unit]; ok is false for
// anything else.
func (l *lowerer) intervalLiteral(n *pg_query.Node) (iv interval, ok bool, err error) {
	tc := n.GetTypeCast()
	if tc == nil || tc.TypeName == nil {
		return interval{}, false, nil
	}
	var parts []string
	for _, p := range tc.TypeName.Names {
		parts = append(parts, p.GetString_().GetSval())
	}
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		parts = parts[1:]
	}
	if len(parts) != 1 || parts[0] != "interval" {
		return interval{}, false, nil
	}
	c := tc.Arg.GetAConst()
	if c == nil || c.GetSval() == nil {
		return interval{}, true, fmt.Errorf("%w: interval of a non-constant%s", ErrUnsupported, l.src.at(tc.Location))
	}
	text := strings.TrimSpace(c.GetSval().GetSval())
	mask := int64(-1)
	if len(tc.TypeName.Typmods) > 0 {
		m := tc.TypeName.Typmods[0].GetAConst()
		if m == nil || m.GetIval() == nil || len(tc.TypeName.Typmods) > 1 {
			return interval{}, true, fmt.Errorf("%w: interval field%s", ErrUnsupported, l.src.at(tc.Location))
		}
		mask = int64(m.GetIval().Ival)
	}
	bad := func() (interval, bool, error) {
		return interval{}, true, fmt.Errorf("%w: invalid input syntax for type interval: %q (years, months, weeks, days, hours, minutes and seconds only)%s",
			ErrUnsupported, text, l.src.at(tc.Location))
	}
	// interval '90' day: a bare number in the unit of the mask.
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		switch mask {
		case maskYear:
			return interval{months: 12 * n}, true, nil
		case maskMonth:
			return interval{months: n}, true, nil
		case maskDay:
			return interval{days: n}, true, nil
		}
		return bad()
	}
	if mask != -1 && mask != maskYear && mask != maskMonth && mask != maskDay {
		return bad()
	}
	// '1 year 2 months 3 days': number-unit pairs.
	f := strings.Fields(strings.ToLower(text))
	if len(f) == 0 || len(f)%2 != 0 {
		return bad()
	}
	for i := 0; i < len(f); i += 2 {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || n > 1<<31 || n < -1<<31 {
			return bad()
		}
		switch strings.TrimSuffix(f[i+1], "s") {
		case "year", "y", "yr":
			iv.months += 12 * n
		case "mon", "month":
			iv.months += n
		case "week", "w":
			iv.days += 7 * n
		case "day", "d":
			iv.days += n
		case "hour", "h", "hr":
			iv.us += n * 3600_000_000
		case "minute", "min":
			iv.us += n * 60_000_000
		case "second", "sec":
			iv.us += n * 1_000_000
		default:
			return bad()
		}
	}
	return iv, true, nil
}

// intervalArith lowers date/timestamp ± interval literal and interval +
// date/timestamp; ok is false when neither operand is an interval
// literal.
func (l *lowerer) intervalArith(a *pg_query.A_Expr, op string, s *scope) (value, bool, error) {
	if op != "+" && op != "-" || a.Lexpr == nil {
		return value{}, false, nil
	}
	other, ivNode := a.Lexpr, a.Rexpr
	iv, ok, err := l.intervalLiteral(ivNode)
	if err != nil {
		return value{}, true, err
	}
	if !ok && op == "+" {
		other, ivNode = a.Rexpr, a.Lexpr
		if iv, ok, err = l.intervalLiteral(ivNode); err != nil {
			return value{}, true, err
		}
	}
	if !ok {
		return value{}, false, nil
	}
	if _, isIv, _ := l.intervalLiteral(other); isIv {
		return value{}, true, fmt.Errorf("%w: interval arithmetic between intervals%s", ErrUnsupported, l.src.at(a.Location))
	}
	if op == "-" {
		iv = interval{months: -iv.months, days: -iv.days, us: -iv.us}
	}
	v, err := l.expr(other, s)
	if err != nil {
		return value{}, true, err
	}
	k := v.kind()
	if v.how != typed || (k != kindDate && k != kindTimestamp) {
		return value{}, true, fmt.Errorf("%w: operator does not exist: %s %s interval%s", ErrType, l.describeKind(v), op, l.src.at(a.Location))
	}
	// A constant: fold.
	if lit, isLit := literalOf(v.e); isLit && lit != nil {
		var t time.Time
		switch x := lit.(type) {
		case dateLit:
			t = time.Unix(int64(x)*86400, 0).UTC()
		case tsLit:
			t = time.UnixMicro(int64(x)).UTC()
		default:
			return value{}, true, fmt.Errorf("%w: %T literal in interval arithmetic", ErrInvalid, lit)
		}
		t = addInterval(t, iv)
		if t.Year() < 1 || t.Year() > 294275 {
			return value{}, true, fmt.Errorf("%w: timestamp out of range%s", ErrType, l.src.at(a.Location))
		}
		return value{e: newLiteral(tsLit(t.UnixMicro()), false), loc: a.Location}, true, nil
	}
	if iv.months != 0 || iv.us != 0 || k != kindDate {
		return value{}, true, fmt.Errorf("%w: interval arithmetic on a non-constant %s (whole days on a date only)%s", ErrUnsupported, k, l.src.at(a.Location))
	}
	days := value{e: newLiteral(int32(iv.days), false), loc: a.Location}
	if iv.days != int64(int32(iv.days)) {
		return value{}, true, fmt.Errorf("%w: interval out of range%s", ErrType, l.src.at(a.Location))
	}
	d, _, err := l.datetimeArith("+", v, days, a.Location)
	if err != nil {
		return value{}, true, err
	}
	e, err := l.explicit(d, kindTimestamp)
	return value{e: e, loc: a.Location}, true, err
}

// addInterval is PostgreSQL's timestamp + interval: the months first,
// the day clamped to the new month's length, then the days, then the
// microseconds.
func addInterval(t time.Time, iv interval) time.Time {
	if iv.months != 0 {
		y, m, d := t.Date()
		total := int64(y)*12 + int64(m-1) + iv.months
		ny, nm := int(total/12), time.Month(total%12+1)
		if total < 0 && total%12 != 0 {
			ny, nm = int(total/12)-1, time.Month(total%12+13)
		}
		last := time.Date(ny, nm+1, 0, 0, 0, 0, 0, time.UTC).Day()
		t = time.Date(ny, nm, min(d, last), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	}
	return t.AddDate(0, 0, int(iv.days)).Add(time.Duration(iv.us) * time.Microsecond)
}

// midnightDate compares a date with a timestamp constant at midnight as
// a date with that day: date → timestamp is the day at midnight, so every
// comparison has the same answer, and the column is not cast row by row
// (l_shipdate <= date '1998-12-01' - interval '90' day).
func midnightDate(lv, rv value) (value, value) {
	fix := func(col, c value) value {
		if col.how != typed || col.kind() != kindDate || c.how != typed || c.kind() != kindTimestamp {
			return c
		}
		lit, ok := literalOf(c.e)
		ts, isTs := lit.(tsLit)
		if !ok || !isTs || int64(ts)%(86400*1_000_000) != 0 {
			return c
		}
		day := int64(ts) / (86400 * 1_000_000)
		if day != int64(int32(day)) {
			return c
		}
		return value{e: newLiteral(dateLit(day), false), loc: c.loc, name: c.name}
	}
	return fix(rv, lv), fix(lv, rv)
}
