package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Extract is a field of a date or a timestamp: PostgreSQL's
// extract(field FROM x) (numeric), its date_part('field', x) (double
// precision), or Substrait's extract (bigint, the standard YAML's
// semantics). One evaluator, three result forms:
//
//	x (date32 | timestamp[us]) --split--> y m d, time of day (us)
//	    --field--> integer value, or seconds and microseconds
//	    --As--> numeric (scale 0, or 3 for milliseconds, 6 for second and
//	            a timestamp's epoch) | double precision | bigint
//
// The values are PostgreSQL 15's (extract_date, extract_timestamp and
// timestamp_part_common in its date.c and timestamp.c): there is no year
// 0 (1 BC is year -1), week and isoyear are ISO 8601's, dow counts from
// Sunday = 0, isodow from Monday = 1, second includes its fraction,
// milliseconds and microseconds count the seconds too (12.5 s is 12500
// milliseconds), epoch is seconds since 1970-01-01 00:00:00.
//
// As ExtractInteger (a Substrait producer's extract, which returns i64)
// reads SECOND as whole seconds, MILLISECOND as the milliseconds since the
// last full second, MICROSECOND as the microseconds since the last full
// millisecond, Subsecond as the microseconds since the last full second
// and Epoch (UNIX_TIME) as whole seconds (floor), as the YAML describes
// them; Offset (the YAML's indexing option) is added to integer fields.
//
// date_part of a date is date_part of the date's midnight (PostgreSQL
// defines it so: date_part(text, date) casts to timestamp), hence
// "date out of range for timestamp" past year 294276. extract(hour FROM
// date) and the other time fields are refused at Bind, as PostgreSQL's
// extract_date refuses them ("unit not supported for type date").
type Extract struct {
	Field  ExtractField
	E      Expr
	As     ExtractAs
	Offset int64 // added to a calendar field (Substrait's indexing ZERO is -1 on most)
}

// ExtractAs is Extract's result form.
type ExtractAs uint8

const (
	ExtractNumeric ExtractAs = iota // PostgreSQL's extract: numeric
	ExtractDouble                   // PostgreSQL's date_part: double precision
	ExtractInteger                  // Substrait's extract: bigint
)

// ExtractField is a field Extract reads.
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

func (e Extract) String() string {
	switch e.As {
	case ExtractDouble:
		return fmt.Sprintf("date_part('%s', %s)", e.Field, e.E)
	case ExtractInteger:
		if e.Offset != 0 {
			return fmt.Sprintf("extract_int(%s FROM %s) %+d", e.Field, e.E, e.Offset)
		}
		return fmt.Sprintf("extract_int(%s FROM %s)", e.Field, e.E)
	}
	return fmt.Sprintf("extract(%s FROM %s)", e.Field, e.E)
}
func (e Extract) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e Extract) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}

// Bind checks the argument's type and the field against it.
func (e Extract) Bind(s *arrow.Schema) (Bound, error) {
	x, err := Bind(e.E, s)
	if err != nil {
		return nil, err
	}
	t := x.Type()
	isDate := t.ID() == arrow.DATE32
	if ts, ok := t.(*arrow.TimestampType); !isDate && (!ok || ts.Unit != arrow.Microsecond || ts.TimeZone != "") {
		return nil, fmt.Errorf("%w: extract from %s", ErrSchema, t)
	}
	if int(e.Field) >= len(fieldNames) {
		return nil, fmt.Errorf("%w: extract field %d", ErrInvalidArgument, e.Field)
	}
	if e.Field == FieldSubsecond && e.As != ExtractInteger {
		return nil, fmt.Errorf("%w: subsecond is Substrait's integer extract only", ErrInvalidArgument)
	}
	if isDate && e.As == ExtractNumeric && e.Field.TimeField() {
		return nil, fmt.Errorf("%w: unit %q not supported for type date", ErrUnsupported, e.Field.String())
	}
	if e.Offset != 0 && (e.Field.TimeField() || e.Field == FieldEpoch) {
		return nil, fmt.Errorf("%w: an offset on %s", ErrInvalidArgument, e.Field)
	}
	out := arrow.DataType(arrow.PrimitiveTypes.Int64)
	switch e.As {
	case ExtractDouble:
		out = arrow.PrimitiveTypes.Float64
	case ExtractNumeric:
		out = ExtractNumericType(e.Field, isDate)
	case ExtractInteger:
	default:
		return nil, fmt.Errorf("%w: extract result form %d", ErrInvalidArgument, e.As)
	}
	return boundExtract{src: e, x: x, date: isDate, out: out}, nil
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

type boundExtract struct {
	src  Extract
	x    Bound
	date bool
	out  arrow.DataType
}

func (e boundExtract) Type() arrow.DataType { return e.out }
func (e boundExtract) String() string       { return e.src.String() }

// Eval names the value errors this node raises (evalNamed).
func (e boundExtract) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	return evalNamed(ctx, mem, b, e, e.eval)
}

func (e boundExtract) eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	d, err := e.x.Eval(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	n, asScalar := rowsFor(int(b.NumRows()), d)
	// A value is read as its broken-down parts and, for a timestamp, its
	// microseconds since 1970 (a date's midnight may not fit them).
	var at func(i int) (parts, int64, bool)
	if e.date {
		o, err := operandOf[int32](d)
		if err != nil {
			return nil, err
		}
		at = func(i int) (parts, int64, bool) { return splitDays(int64(o.at(i))), 0, o.valid(i) }
	} else {
		o, err := operandOf[int64](d)
		if err != nil {
			return nil, err
		}
		at = func(i int) (parts, int64, bool) { return split(o.at(i)), o.at(i), o.valid(i) }
	}
	a, err := e.kernel(mem, n, at)
	if err != nil {
		return nil, err
	}
	return result(a, asScalar)
}

func (e boundExtract) kernel(mem memory.Allocator, n int, at func(int) (parts, int64, bool)) (arrow.Array, error) {
	f := e.src.Field
	switch e.src.As {
	case ExtractDouble:
		out := newFixedOut[float64](mem, e.out, n)
		for i := 0; i < n; i++ {
			p, us, ok := at(i)
			if !ok {
				out.setNull(i)
				continue
			}
			if e.date { // date_part(text, date) is date_part of $2::timestamp
				var err error
				if us, err = DateToTimestamp(int32(p.days)); err != nil {
					out.release()
					return nil, err
				}
			}
			out.v[i] = extractDouble(f, p, us) + float64(e.src.Offset)
		}
		return out.array(), nil
	case ExtractInteger:
		out := newFixedOut[int64](mem, e.out, n)
		for i := 0; i < n; i++ {
			p, us, ok := at(i)
			if !ok {
				out.setNull(i)
				continue
			}
			if f == FieldEpoch && e.date {
				out.v[i] = p.days * 86400
				continue
			}
			out.v[i] = extractInteger(f, p, us) + e.src.Offset
		}
		return out.array(), nil
	}
	typ := e.out.(*arrow.Decimal128Type)
	bld := array.NewDecimal128Builder(mem, typ)
	defer bld.Release()
	bld.Reserve(n)
	for i := 0; i < n; i++ {
		p, us, ok := at(i)
		if !ok {
			bld.AppendNull()
			continue
		}
		bld.Append(decimal128.FromI64(extractUnscaled(f, p, us, e.date) + e.src.Offset))
	}
	return bld.NewArray(), nil
}

// parts splits microseconds since 1970 into PostgreSQL's broken-down
// time: the day, the civil date of it (year 0 is 1 BC, as PostgreSQL's
// tm_year) and the time of day.
type parts struct {
	days, y, m, d int64
	tod           int64 // microseconds since midnight
}

func split(us int64) parts {
	days := us / usPerDay
	if us%usPerDay < 0 {
		days--
	}
	p := splitDays(days)
	p.tod = us - days*usPerDay
	return p
}

// splitDays is the parts of a date (midnight).
func splitDays(days int64) parts {
	y, m, d := civilFromDays(days)
	return parts{days: days, y: y, m: m, d: d}
}

// sunday0 is the day of the week, Sunday = 0 (1970-01-01 was a Thursday).
func (p parts) sunday0() int64 { return ((p.days+4)%7 + 7) % 7 }

// isoWeek is the ISO 8601 week and its year (astronomical): the week of a
// day is the week of its Thursday (PostgreSQL's date2isoweek and
// date2isoyear).
func (p parts) isoWeek() (week, year int64) {
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
func integerField(f ExtractField, p parts) int64 {
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
func (p parts) secUS() int64 { return p.tod % 60e6 }

// extractUnscaled is extract's numeric value, unscaled to
// ExtractNumericType's scale.
func extractUnscaled(f ExtractField, p parts, us int64, isDate bool) int64 {
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

// extractDouble is date_part's value, computed as PostgreSQL computes it
// in double precision.
func extractDouble(f ExtractField, p parts, us int64) float64 {
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

// extractInteger is Substrait's extract (functions_datetime.yaml).
func extractInteger(f ExtractField, p parts, us int64) int64 {
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
