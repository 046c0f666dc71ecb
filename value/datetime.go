package value

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Dates and timestamps as PostgreSQL reads and prints them (ISO datestyle):
// a date is an Arrow date32, days since 1970-01-01 in the proleptic
// Gregorian calendar; a timestamp (without time zone) an Arrow timestamp in
// microseconds since 1970-01-01 00:00:00. PostgreSQL's own range holds:
// dates from 4714-11-24 BC to 5874897-12-31, timestamps from 4714-11-24 BC
// up to what int64 microseconds since 1970 hold (PostgreSQL counts from
// 2000, so its last 30 years of timestamps, past year 294246, are refused
// here as out of range).

const (
	// MinDate and EndDate bound the valid dates (days since 1970): julian
	// day 0 (4714-11-24 BC) up to, not including, PostgreSQL's
	// DATE_END_JULIAN.
	MinDate = -2440588
	EndDate = 2147483494 - 2440588

	usPerDay  = 86400 * 1000000
	usPerHour = 3600 * 1000000

	// MinTimestamp is 4714-11-24 00:00:00 BC in microseconds since 1970.
	MinTimestamp = int64(MinDate) * usPerDay
)

// daysFromCivil is the day number (since 1970-01-01) of y-m-d in the
// proleptic Gregorian calendar; year 0 is 1 BC.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// dateTimeParts is what ParseDate and ParseTimestamp read: y-m-d and an
// optional time of day in microseconds (up to 24:00:00 and a leap second,
// which PostgreSQL carries into the next day or minute).
type dateTimeParts struct {
	y, m, d int64
	us      int64
	hasTime bool
}

// errDateSyntax and errDateRange are PostgreSQL's two date input errors.
func errDateSyntax(typ, s string) error {
	return fmt.Errorf("%w: invalid input syntax for type %s: %q", ErrInvalidArgument, typ, s)
}
func errDateRange(s string) error {
	return fmt.Errorf("%w: date/time field value out of range: %q", ErrOutOfRange, s)
}

// digits reads a run of ASCII digits at the start of s.
func digits(s string) (string, string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

// parseDateTime reads the ISO forms PostgreSQL accepts and producers
// write: YYYY-MM-DD or YYYYMMDD, then optionally ' ' or 'T' and
// HH:MM[:SS[.ffffff]]. Other spellings (month names, BC, time zones,
// 'epoch', 'infinity') are invalid input here.
func parseDateTime(typ, in string) (dateTimeParts, error) {
	s := strings.Trim(in, InputSpace)
	var p dateTimeParts
	ys, rest := digits(s)
	switch {
	case len(ys) == 8 && (rest == "" || rest[0] == ' ' || rest[0] == 'T'):
		p.y, _ = strconv.ParseInt(ys[:4], 10, 64)
		p.m, _ = strconv.ParseInt(ys[4:6], 10, 64)
		p.d, _ = strconv.ParseInt(ys[6:], 10, 64)
	case len(ys) >= 1 && len(ys) <= 7 && strings.HasPrefix(rest, "-"):
		ms, r2 := digits(rest[1:])
		if len(ms) < 1 || len(ms) > 2 || !strings.HasPrefix(r2, "-") {
			return p, errDateSyntax(typ, in)
		}
		ds, r3 := digits(r2[1:])
		if len(ds) < 1 || len(ds) > 2 {
			return p, errDateSyntax(typ, in)
		}
		p.y, _ = strconv.ParseInt(ys, 10, 64)
		p.m, _ = strconv.ParseInt(ms, 10, 64)
		p.d, _ = strconv.ParseInt(ds, 10, 64)
		rest = r3
	default:
		return p, errDateSyntax(typ, in)
	}
	if rest != "" {
		if rest[0] != ' ' && rest[0] != 'T' {
			return p, errDateSyntax(typ, in)
		}
		us, err := parseTime(typ, in, strings.TrimLeft(rest[1:], " "))
		if err != nil {
			return p, err
		}
		p.us, p.hasTime = us, true
	}
	if p.y < 1 || p.m < 1 || p.m > 12 || p.d < 1 || p.d > daysIn(p.y, p.m) {
		return p, errDateRange(in)
	}
	return p, nil
}

// parseTime reads HH:MM[:SS[.fff...]] into microseconds, rounding the
// fraction to microseconds as PostgreSQL does (rint).
func parseTime(typ, in, s string) (int64, error) {
	hs, r := digits(s)
	if len(hs) < 1 || len(hs) > 2 || !strings.HasPrefix(r, ":") {
		return 0, errDateSyntax(typ, in)
	}
	ms, r := digits(r[1:])
	if len(ms) != 2 {
		return 0, errDateSyntax(typ, in)
	}
	var ss, frac string
	if strings.HasPrefix(r, ":") {
		if ss, r = digits(r[1:]); len(ss) != 2 {
			return 0, errDateSyntax(typ, in)
		}
		if strings.HasPrefix(r, ".") {
			if frac, r = digits(r[1:]); frac == "" {
				return 0, errDateSyntax(typ, in)
			}
		}
	}
	if r != "" {
		return 0, errDateSyntax(typ, in)
	}
	h, _ := strconv.ParseInt(hs, 10, 64)
	m, _ := strconv.ParseInt(ms, 10, 64)
	sec, _ := strconv.ParseInt("0"+ss, 10, 64)
	var us int64
	if frac != "" {
		f, _ := strconv.ParseFloat("0."+frac, 64)
		us = int64(math.RoundToEven(f * 1e6))
	}
	// PostgreSQL: hours up to 24 (24:00:00 exactly), seconds up to 60.
	if h > 24 || m > 59 || sec > 60 || (h == 24 && (m != 0 || sec != 0 || us != 0)) {
		return 0, errDateRange(in)
	}
	return ((h*60+m)*60+sec)*1000000 + us, nil
}

// ParseDate reads s as PostgreSQL's date_in does for the ISO forms; a
// time of day after the date is checked and dropped.
func ParseDate(s string) (int32, error) {
	p, err := parseDateTime("date", s)
	if err != nil {
		return 0, err
	}
	d := daysFromCivil(p.y, p.m, p.d)
	if d < MinDate || d >= EndDate {
		return 0, fmt.Errorf("%w: date out of range: %q", ErrOutOfRange, s)
	}
	return int32(d), nil
}

// ParseTimestamp reads s as PostgreSQL's timestamp_in does for the ISO
// forms; a date alone is its midnight.
func ParseTimestamp(s string) (int64, error) {
	p, err := parseDateTime("timestamp", s)
	if err != nil {
		return 0, err
	}
	d := daysFromCivil(p.y, p.m, p.d)
	if d < MinDate || d > math.MaxInt64/usPerDay-1 {
		return 0, fmt.Errorf("%w: timestamp out of range: %q", ErrOutOfRange, s)
	}
	return d*usPerDay + p.us, nil
}

// DateToTimestamp is a date's midnight; every valid date has one, but
// past year 294246 it does not fit int64 microseconds since 1970.
func DateToTimestamp(d int32) (int64, error) {
	if int64(d) > math.MaxInt64/usPerDay-1 {
		return 0, fmt.Errorf("%w: date out of range for timestamp", ErrOutOfRange)
	}
	return int64(d) * usPerDay, nil
}

// TimestampToDate is the date of a timestamp (floor: the day it falls in).
func TimestampToDate(us int64) int32 {
	d := us / usPerDay
	if us%usPerDay < 0 {
		d--
	}
	return int32(d)
}

// DateAddDays is date + n days, PostgreSQL's date_pli: "date out of
// range" outside the valid dates.
func DateAddDays(d int32, n int64) (int32, error) {
	r := int64(d) + n
	if r < MinDate || r >= EndDate {
		return 0, fmt.Errorf("%w: date out of range", ErrOutOfRange)
	}
	return int32(r), nil
}

// appendYear writes a year as PostgreSQL does: at least four digits, and
// years before 1 AD as their BC number (year 0 is 1 BC) with " BC" after
// the whole value (bc reports it).
func appendYear(b []byte, y int64) ([]byte, bool) {
	bc := y <= 0
	if bc {
		y = 1 - y
	}
	s := strconv.FormatInt(y, 10)
	for i := len(s); i < 4; i++ {
		b = append(b, '0')
	}
	return append(b, s...), bc
}

func append2(b []byte, v int64) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

// FormatDate writes a date as PostgreSQL's date_out (ISO): YYYY-MM-DD.
func FormatDate(days int32) string {
	y, m, d := civilFromDays(int64(days))
	b, bc := appendYear(make([]byte, 0, 16), y)
	b = append(b, '-')
	b = append2(b, m)
	b = append(b, '-')
	b = append2(b, d)
	if bc {
		b = append(b, " BC"...)
	}
	return string(b)
}

// FormatTimestamp writes a timestamp as PostgreSQL's timestamp_out (ISO):
// YYYY-MM-DD HH:MM:SS, then the fraction of a second without trailing
// zeros, if any.
func FormatTimestamp(us int64) string {
	days := int64(TimestampToDate(us))
	t := us - days*usPerDay
	y, m, d := civilFromDays(days)
	b, bc := appendYear(make([]byte, 0, 32), y)
	b = append(b, '-')
	b = append2(b, m)
	b = append(b, '-')
	b = append2(b, d)
	b = append(b, ' ')
	b = append2(b, t/usPerHour)
	b = append(b, ':')
	b = append2(b, t/60000000%60)
	b = append(b, ':')
	b = append2(b, t/1000000%60)
	if f := t % 1000000; f != 0 {
		fs := strconv.FormatInt(f+1000000, 10)[1:]
		b = append(b, '.')
		b = append(b, strings.TrimRight(fs, "0")...)
	}
	if bc {
		b = append(b, " BC"...)
	}
	return string(b)
}
