package value

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// ExtractField is a field of a date or a timestamp that extract and
// date_part read (physexpr.Extract evaluates them a column at a time).
type ExtractField uint8

const (
	FieldYear ExtractField = iota
	FieldISOYear
	FieldQuarter
	FieldMonth
	FieldWeek // ISO 8601 week of the ISO year
	FieldDay
	FieldDOW    // 0 (Sunday) to 6
	FieldISODOW // 1 (Monday) to 7
	FieldDOY
	FieldDecade
	FieldCentury
	FieldMillennium
	FieldHour
	FieldMinute
	FieldSecond
	FieldMilliseconds
	FieldMicroseconds
	FieldEpoch
	FieldSubsecond // Substrait's SUBSECOND: ExtractInteger only
)

var fieldNames = [...]string{
	FieldYear: "year", FieldISOYear: "isoyear", FieldQuarter: "quarter", FieldMonth: "month",
	FieldWeek: "week", FieldDay: "day", FieldDOW: "dow", FieldISODOW: "isodow", FieldDOY: "doy",
	FieldDecade: "decade", FieldCentury: "century", FieldMillennium: "millennium",
	FieldHour: "hour", FieldMinute: "minute", FieldSecond: "second",
	FieldMilliseconds: "milliseconds", FieldMicroseconds: "microseconds", FieldEpoch: "epoch",
	FieldSubsecond: "subsecond",
}

func (f ExtractField) String() string {
	if int(f) < len(fieldNames) {
		return fieldNames[f]
	}
	return fmt.Sprintf("field(%d)", uint8(f))
}

// FieldCount is the number of fields: ExtractField(0) to
// ExtractField(FieldCount-1) are the known ones.
const FieldCount = len(fieldNames)

// Known reports whether f is one of the fields above (a plan may carry
// any number).
func (f ExtractField) Known() bool { return int(f) < len(fieldNames) }

// TimeField reports a field of the time of day, which a date lacks.
func (f ExtractField) TimeField() bool { return f >= FieldHour && f != FieldEpoch }

// unitNames are PostgreSQL's spellings of the units (its deltatktbl and
// datetktbl: "years", "yr", "mon", "msec", ...), matched as PostgreSQL
// matches them: lower-cased and cut to TOKMAXLEN (10) characters, so
// "microseconds" is "microsecon". Units PostgreSQL knows and stablerow
// does not compute (julian, timezone) are in unitUnsupported.
var unitNames = map[string]ExtractField{
	"year": FieldYear, "years": FieldYear, "y": FieldYear, "yr": FieldYear, "yrs": FieldYear,
	"isoyear": FieldISOYear,
	"quarter": FieldQuarter, "qtr": FieldQuarter,
	"month": FieldMonth, "months": FieldMonth, "mon": FieldMonth, "mons": FieldMonth,
	"week": FieldWeek, "weeks": FieldWeek, "w": FieldWeek,
	"day": FieldDay, "days": FieldDay, "d": FieldDay,
	"dow": FieldDOW, "isodow": FieldISODOW, "doy": FieldDOY,
	"decade": FieldDecade, "decades": FieldDecade, "dec": FieldDecade, "decs": FieldDecade,
	"century": FieldCentury, "centuries": FieldCentury, "cent": FieldCentury, "c": FieldCentury,
	"millennium": FieldMillennium, "millennia": FieldMillennium, "mil": FieldMillennium, "mils": FieldMillennium,
	"hour": FieldHour, "hours": FieldHour, "h": FieldHour, "hr": FieldHour, "hrs": FieldHour,
	"minute": FieldMinute, "minutes": FieldMinute, "m": FieldMinute, "min": FieldMinute, "mins": FieldMinute,
	"second": FieldSecond, "seconds": FieldSecond, "s": FieldSecond, "sec": FieldSecond, "secs": FieldSecond,
	"millisecon": FieldMilliseconds, "ms": FieldMilliseconds, "msec": FieldMilliseconds, "msecs": FieldMilliseconds,
	"msecond": FieldMilliseconds, "mseconds": FieldMilliseconds,
	"microsecon": FieldMicroseconds, "us": FieldMicroseconds, "usec": FieldMicroseconds, "usecs": FieldMicroseconds,
	"usecond": FieldMicroseconds, "useconds": FieldMicroseconds,
	"epoch": FieldEpoch,
}

var unitUnsupported = map[string]bool{"julian": true, "j": true, "timezone": true, "timezone_h": true, "timezone_m": true}

// ParseExtractField reads a unit as PostgreSQL's extract and date_part
// do; typ ("date", "timestamp without time zone") names the argument's
// type in the error. An unknown unit is ErrInvalidArgument (PostgreSQL's
// 22023 "not recognized"), julian and the time zone units ErrUnsupported.
func ParseExtractField(unit, typ string) (ExtractField, error) {
	low := strings.ToLower(unit)
	key := low
	if len(key) > 10 {
		key = key[:10]
	}
	if f, ok := unitNames[key]; ok {
		return f, nil
	}
	if unitUnsupported[key] {
		return 0, fmt.Errorf("%w: unit %q not supported for type %s", ErrUnsupported, low, typ)
	}
	return 0, fmt.Errorf("%w: unit %q not recognized for type %s", ErrInvalidArgument, low, typ)
}

// ExtractNumericType is extract's numeric: scale 6 for second and a
// timestamp's epoch (PostgreSQL's int64_div_fast_to_numeric(us, 6)), 3
// for milliseconds, else an integer. 19 digits hold every value (a
// timestamp's microseconds are an int64).
func ExtractNumericType(f ExtractField, isDate bool) *arrow.Decimal128Type {
	scale := int32(0)
	switch {
	case f == FieldSecond || f == FieldEpoch && !isDate:
		scale = 6
	case f == FieldMilliseconds:
		scale = 3
	}
	return &arrow.Decimal128Type{Precision: 19, Scale: scale}
}

// Parts is PostgreSQL's broken-down time of a date or a timestamp: the
// day, the civil date of it (year 0 is 1 BC, as PostgreSQL's tm_year)
// and the time of day. exec's extract kernel splits each row once
// (SplitTimestamp, SplitDate) and reads a field of it in one of the
// three result forms (ExtractUnscaled, ExtractDouble, ExtractInteger).
type Parts struct {
	days, y, m, d int64
	tod           int64 // microseconds since midnight
}

// SplitTimestamp splits microseconds since 1970 into its Parts.
func SplitTimestamp(us int64) Parts {
	days := us / usPerDay
	if us%usPerDay < 0 {
		days--
	}
	p := SplitDate(days)
	p.tod = us - days*usPerDay
	return p
}

// SplitDate is the parts of a date (midnight).
func SplitDate(days int64) Parts {
	y, m, d := civilFromDays(days)
	return Parts{days: days, y: y, m: m, d: d}
}

// Days is the day of p, days since 1970-01-01.
func (p Parts) Days() int64 { return p.days }

// sunday0 is the day of the week, Sunday = 0 (1970-01-01 was a Thursday).
func (p Parts) sunday0() int64 { return ((p.days+4)%7 + 7) % 7 }

// isoWeek is the ISO 8601 week and its year (astronomical): the week of a
// day is the week of its Thursday (PostgreSQL's date2isoweek and
// date2isoyear).
func (p Parts) isoWeek() (week, year int64) {
	dow := p.sunday0()
	if dow == 0 {
		dow = 7
	}
	thu := p.days - (dow - 1) + 3
	ty, _, _ := civilFromDays(thu)
	return (thu-daysFromCivil(ty, 1, 1))/7 + 1, ty
}

// bcYear is a year as PostgreSQL's extract numbers it: no year 0.
func bcYear(y int64) int64 {
	if y > 0 {
		return y
	}
	return y - 1
}

// integerField is a field whose value is an integer in every form.
func integerField(f ExtractField, p Parts) int64 {
	switch f {
	case FieldYear:
		return bcYear(p.y)
	case FieldISOYear:
		_, y := p.isoWeek()
		return bcYear(y)
	case FieldQuarter:
		return (p.m-1)/3 + 1
	case FieldMonth:
		return p.m
	case FieldWeek:
		w, _ := p.isoWeek()
		return w
	case FieldDay:
		return p.d
	case FieldDOW:
		return p.sunday0()
	case FieldISODOW:
		if d := p.sunday0(); d != 0 {
			return d
		}
		return 7
	case FieldDOY:
		return p.days - daysFromCivil(p.y, 1, 1) + 1
	case FieldDecade: // timestamp_part_common's rules for BC, verbatim
		if p.y >= 0 {
			return p.y / 10
		}
		return -((8 - (p.y - 1)) / 10)
	case FieldCentury:
		if p.y > 0 {
			return (p.y + 99) / 100
		}
		return -((99 - (p.y - 1)) / 100)
	case FieldMillennium:
		if p.y > 0 {
			return (p.y + 999) / 1000
		}
		return -((999 - (p.y - 1)) / 1000)
	case FieldHour:
		return p.tod / usPerHour
	case FieldMinute:
		return p.tod / 60e6 % 60
	}
	return 0
}

// secUS is the second of the minute with its fraction, in microseconds
// (PostgreSQL's tm_sec * 1000000 + fsec).
func (p Parts) secUS() int64 { return p.tod % 60e6 }

// ExtractUnscaled is extract's numeric value, unscaled to
// ExtractNumericType's scale.
func ExtractUnscaled(f ExtractField, p Parts, us int64, isDate bool) int64 {
	switch f {
	case FieldSecond, FieldMicroseconds:
		return p.secUS() // scale 6 for second, 0 for microseconds
	case FieldMilliseconds:
		return p.secUS() // scale 3: (tm_sec * 1000000 + fsec) / 1000
	case FieldEpoch:
		if isDate {
			return p.days * 86400
		}
		return us // scale 6
	}
	return integerField(f, p)
}

// ExtractDouble is date_part's value, computed as PostgreSQL computes it
// in double precision.
func ExtractDouble(f ExtractField, p Parts, us int64) float64 {
	sec, fsec := p.secUS()/1e6, p.secUS()%1e6
	switch f {
	case FieldSecond:
		return float64(sec) + float64(fsec)/1000000.0
	case FieldMilliseconds:
		return float64(sec)*1000.0 + float64(fsec)/1000.0
	case FieldMicroseconds:
		return float64(p.secUS())
	case FieldEpoch:
		return float64(us) / 1000000.0
	}
	return float64(integerField(f, p))
}

// ExtractInteger is Substrait's extract (functions_datetime.yaml).
func ExtractInteger(f ExtractField, p Parts, us int64) int64 {
	switch f {
	case FieldSecond:
		return p.secUS() / 1e6
	case FieldMilliseconds:
		return p.secUS() % 1e6 / 1000
	case FieldMicroseconds:
		return p.secUS() % 1000
	case FieldSubsecond:
		return p.secUS() % 1e6
	case FieldEpoch:
		s := us / 1e6
		if us%1e6 < 0 {
			s--
		}
		return s
	}
	return integerField(f, p)
}
