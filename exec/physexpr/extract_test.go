package physexpr

import (
	"context"
	"encoding/binary"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/value"
)

var tsType = &arrow.TimestampType{Unit: arrow.Microsecond}

// extractOver evaluates e over a column x of typ (date32 or timestamp)
// holding vals (days or microseconds; nil is NULL) and renders each
// result as PostgreSQL prints it ("" for NULL).
func extractOver(t testing.TB, mem memory.Allocator, typ arrow.DataType, vals []*int64, e Extract) ([]string, error) {
	t.Helper()
	var a arrow.Array
	if typ.ID() == arrow.DATE32 {
		b := array.NewDate32Builder(mem)
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(arrow.Date32(*v))
			}
		}
		a = b.NewArray()
		b.Release()
	} else {
		b := array.NewTimestampBuilder(mem, tsType)
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(arrow.Timestamp(*v))
			}
		}
		a = b.NewArray()
		b.Release()
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: typ, Nullable: true}}, nil)
	batch := array.NewRecordBatch(sc, []arrow.Array{a}, int64(len(vals)))
	a.Release()
	defer batch.Release()
	out, err := e.Evaluate(context.Background(), mem, batch)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	res := make([]string, out.Len())
	for i := range res {
		if out.IsNull(i) {
			continue
		}
		switch o := out.(type) {
		case *array.Decimal128:
			res[i] = value.FormatDecimal(o.Value(i), o.DataType().(*arrow.Decimal128Type).Scale)
		case *array.Float64:
			res[i] = value.FormatFloat(o.Value(i), 64)
		case *array.Int64:
			res[i] = strconv.FormatInt(o.Value(i), 10)
		}
	}
	return res, nil
}

func ptr(v int64) *int64 { return &v }

func mustTS(t testing.TB, s string) int64 {
	v, err := value.ParseTimestamp(s)
	require.NoError(t, err, s)
	return v
}

func mustDate(t testing.TB, s string) int64 {
	v, err := value.ParseDate(s)
	require.NoError(t, err, s)
	return int64(v)
}

// TestExtractPostgres: the examples of PostgreSQL 15's documentation
// (functions-datetime.html, "EXTRACT, date_part") and answers psql gives,
// each in the form PostgreSQL prints it.
func TestExtractPostgres(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	type c struct {
		x     string
		date  bool
		field string
		as    ExtractAs
		want  string
	}
	cases := []c{
		{"2001-02-16 20:38:40", false, "day", ExtractNumeric, "16"},
		{"2001-02-16 20:38:40", false, "dow", ExtractNumeric, "5"},
		{"2001-02-16 20:38:40", false, "doy", ExtractNumeric, "47"},
		{"2001-02-16 20:38:40.12", false, "epoch", ExtractNumeric, "982355920.120000"},
		{"2001-02-16 20:38:40", false, "hour", ExtractNumeric, "20"},
		{"2001-02-18 20:38:40", false, "isodow", ExtractNumeric, "7"},
		{"2001-02-18 20:38:40", false, "dow", ExtractNumeric, "0"},
		{"2006-01-01", true, "isoyear", ExtractNumeric, "2005"},
		{"2006-01-02", true, "isoyear", ExtractNumeric, "2006"},
		{"2001-02-16 20:38:40", false, "minute", ExtractNumeric, "38"},
		{"2001-02-16 20:38:40", false, "month", ExtractNumeric, "2"},
		{"2001-02-16 20:38:40", false, "quarter", ExtractNumeric, "1"},
		{"2001-02-16 20:38:40", false, "second", ExtractNumeric, "40.000000"},
		{"2001-02-16 17:12:28.5", false, "second", ExtractNumeric, "28.500000"},
		{"2001-02-16 17:12:28.5", false, "milliseconds", ExtractNumeric, "28500.000"},
		{"2001-02-16 17:12:28.5", false, "microseconds", ExtractNumeric, "28500000"},
		{"2001-02-16 20:38:40", false, "week", ExtractNumeric, "7"},
		{"2001-02-16 20:38:40", false, "year", ExtractNumeric, "2001"},
		{"2000-12-16 12:21:13", false, "century", ExtractNumeric, "20"},
		{"2001-02-16 20:38:40", false, "century", ExtractNumeric, "21"},
		{"2001-02-16 20:38:40", false, "decade", ExtractNumeric, "200"},
		{"2001-02-16 20:38:40", false, "millennium", ExtractNumeric, "3"},
		{"0001-01-01", true, "century", ExtractNumeric, "1"},
		{"2001-02-16", true, "epoch", ExtractNumeric, "982281600"},
		{"1969-12-31 23:59:59.5", false, "epoch", ExtractNumeric, "-0.500000"},
		{"2001-02-16 20:38:40", false, "day", ExtractDouble, "16"},
		{"2001-02-16 20:38:40.12", false, "epoch", ExtractDouble, "982355920.12"},
		{"2001-02-16 17:12:28.5", false, "second", ExtractDouble, "28.5"},
		{"2001-02-16 17:12:28.5", false, "milliseconds", ExtractDouble, "28500"},
		{"2001-02-16", true, "hour", ExtractDouble, "0"},
		{"2001-02-16", true, "epoch", ExtractDouble, "982281600"},
		// Substrait's integer extract: whole seconds, the milliseconds
		// since the last full second, the epoch's floor.
		{"2001-02-16 17:12:28.5", false, "second", ExtractInteger, "28"},
		{"2001-02-16 17:12:28.5", false, "milliseconds", ExtractInteger, "500"},
		{"2001-02-16 17:12:28.123456", false, "microseconds", ExtractInteger, "456"},
		{"1969-12-31 23:59:59.5", false, "epoch", ExtractInteger, "-1"},
		{"2001-02-16", true, "year", ExtractInteger, "2001"},
	}
	for _, tc := range cases {
		typ, v := arrow.DataType(tsType), int64(0)
		if tc.date {
			typ, v = arrow.FixedWidthTypes.Date32, mustDate(t, tc.x)
		} else {
			v = mustTS(t, tc.x)
		}
		f, err := value.ParseExtractField(tc.field, "timestamp")
		require.NoError(t, err)
		got, err := extractOver(t, mem, typ, []*int64{ptr(v), nil}, Extract{Field: f, E: Col{Index: 0}, As: tc.as})
		require.NoError(t, err, "%s(%s FROM %s)", tc.as, tc.field, tc.x)
		require.Equal(t, []string{tc.want, ""}, got, "%d(%s FROM %s)", tc.as, tc.field, tc.x)
	}
	// 1 BC: PostgreSQL has no year 0 (its astronomical year 0 is -1).
	bc := mustDate(t, "0001-01-01") - 1
	got, err := extractOver(t, mem, arrow.FixedWidthTypes.Date32, []*int64{ptr(bc)}, Extract{Field: value.FieldYear, E: Col{Index: 0}})
	require.NoError(t, err)
	require.Equal(t, []string{"-1"}, got)
	got, err = extractOver(t, mem, arrow.FixedWidthTypes.Date32, []*int64{ptr(bc)}, Extract{Field: value.FieldCentury, E: Col{Index: 0}})
	require.NoError(t, err)
	require.Equal(t, []string{"-1"}, got)
}

func TestExtractErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, err := value.ParseExtractField("fortnight", "date")
	require.ErrorIs(t, err, errkind.InvalidArgument)
	require.ErrorContains(t, err, `unit "fortnight" not recognized for type date`)
	_, err = value.ParseExtractField("julian", "date")
	require.ErrorIs(t, err, errkind.Unsupported)
	f, err := value.ParseExtractField("MicroSeconds", "date") // cut to 10 characters, as PostgreSQL
	require.NoError(t, err)
	require.Equal(t, value.FieldMicroseconds, f)
	date := arrow.FixedWidthTypes.Date32
	_, err = extractOver(t, mem, date, []*int64{ptr(0)}, Extract{Field: value.FieldHour, E: Col{Index: 0}})
	require.ErrorIs(t, err, errkind.Unsupported, "extract(hour FROM date)")
	// date_part of a date past the last timestamp: the cast's error.
	_, err = extractOver(t, mem, date, []*int64{ptr(value.EndDate - 1)}, Extract{Field: value.FieldYear, E: Col{Index: 0}, As: ExtractDouble})
	require.ErrorIs(t, err, errkind.OutOfRange)
	// extract of it is fine (PostgreSQL's extract_date).
	got, err := extractOver(t, mem, date, []*int64{ptr(value.EndDate - 1)}, Extract{Field: value.FieldYear, E: Col{Index: 0}})
	require.NoError(t, err)
	require.Equal(t, []string{"5874897"}, got)
	_, err = extractOver(t, mem, date, []*int64{ptr(0)}, Extract{Field: value.FieldSubsecond, E: Col{Index: 0}})
	require.ErrorIs(t, err, errkind.InvalidArgument)
	_, err = extractOver(t, mem, tsType, []*int64{ptr(0)}, Extract{Field: value.FieldHour, E: Col{Index: 0}, As: ExtractInteger, Offset: 1})
	require.ErrorIs(t, err, errkind.InvalidArgument)
}

// FuzzExtract checks every field of every form against Go's time package
// (the proleptic Gregorian calendar and ISO 8601 weeks, PostgreSQL's) over
// any timestamp stablerow holds and any date.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{"2001-02-16 20:38:40.12", "1969-12-31 23:59:59.999999", "0001-01-01 00:00:00", "2004-12-31 12:00:00", "2005-01-01 00:00:00.5"} {
		v, _ := value.ParseTimestamp(s)
		var b [10]byte
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 10 {
			return
		}
		us := int64(binary.LittleEndian.Uint64(data))
		field := value.ExtractField(data[8] % uint8(value.FieldCount))
		as := ExtractAs(data[9] % 3)
		isDate := data[9]&0x80 != 0
		typ := arrow.DataType(tsType)
		v := us
		if isDate {
			typ, v = arrow.FixedWidthTypes.Date32, int64(int32(us))
			if v < value.MinDate || v >= value.EndDate {
				return
			}
			us = v * 86400 * 1000000 // midnight, in microseconds
		} else if us < value.MinTimestamp {
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		got, err := extractOver(t, mem, typ, []*int64{ptr(v)}, Extract{Field: field, E: Col{Index: 0}, As: as})
		if err != nil {
			// The refusals: a date's time fields (extract), subsecond
			// outside Substrait's form, a date past the last timestamp
			// (date_part).
			switch {
			case errors.Is(err, errkind.Unsupported) && isDate && as == ExtractNumeric && field.TimeField():
			case errors.Is(err, errkind.InvalidArgument) && field == value.FieldSubsecond && as != ExtractInteger:
			case errors.Is(err, errkind.OutOfRange) && isDate && as == ExtractDouble && v > 106000000:
			default:
				t.Fatalf("%s(%s FROM %d): %v", []string{"numeric", "double", "integer"}[as], field, v, err)
			}
			return
		}
		if isDate && (v > 106000000 || v < -106000000) {
			return // beyond the years Go's time formats (the oracle)
		}
		tm := time.UnixMicro(us).UTC()
		year := int64(tm.Year())
		pgYear := func(y int64) int64 {
			if y <= 0 {
				return y - 1
			}
			return y
		}
		isoY, isoW := tm.ISOWeek()
		dow := int64(tm.Weekday())
		isodow := dow
		if isodow == 0 {
			isodow = 7
		}
		secUS := int64(tm.Second())*1e6 + int64(tm.Nanosecond()/1000)
		var want int64
		switch field {
		case value.FieldYear:
			want = pgYear(year)
		case value.FieldISOYear:
			want = pgYear(int64(isoY))
		case value.FieldQuarter:
			want = (int64(tm.Month())-1)/3 + 1
		case value.FieldMonth:
			want = int64(tm.Month())
		case value.FieldWeek:
			want = int64(isoW)
		case value.FieldDay:
			want = int64(tm.Day())
		case value.FieldDOW:
			want = dow
		case value.FieldISODOW:
			want = isodow
		case value.FieldDOY:
			want = int64(tm.YearDay())
		case value.FieldHour:
			want = int64(tm.Hour())
		case value.FieldMinute:
			want = int64(tm.Minute())
		case value.FieldDecade, value.FieldCentury, value.FieldMillennium:
			// PostgreSQL's formulas (TestExtractPostgres pins them): here
			// only the sign and the order of magnitude.
			n, err := strconv.ParseInt(got[0], 10, 64)
			require.NoError(t, err)
			div := map[value.ExtractField]int64{value.FieldDecade: 10, value.FieldCentury: 100, value.FieldMillennium: 1000}[field]
			require.LessOrEqual(t, abs64(n-year/div), int64(1), "%s of %d", field, year)
			return
		case value.FieldSecond, value.FieldMilliseconds, value.FieldMicroseconds, value.FieldEpoch, value.FieldSubsecond:
			wantSec := map[ExtractAs]map[value.ExtractField]string{
				ExtractNumeric: {
					value.FieldSecond: value.FormatDecimal(decimal128.FromI64(secUS), 6), value.FieldMilliseconds: value.FormatDecimal(decimal128.FromI64(secUS), 3),
					value.FieldMicroseconds: strconv.FormatInt(secUS, 10),
				},
				ExtractDouble: {
					value.FieldSecond:       value.FormatFloat(float64(tm.Second())+float64(tm.Nanosecond()/1000)/1000000.0, 64),
					value.FieldMilliseconds: value.FormatFloat(float64(tm.Second())*1000.0+float64(tm.Nanosecond()/1000)/1000.0, 64),
					value.FieldMicroseconds: value.FormatFloat(float64(secUS), 64),
					value.FieldEpoch:        value.FormatFloat(float64(us)/1000000.0, 64),
				},
				ExtractInteger: {
					value.FieldSecond: strconv.Itoa(tm.Second()), value.FieldMilliseconds: strconv.Itoa(tm.Nanosecond() / 1e6),
					value.FieldMicroseconds: strconv.Itoa(tm.Nanosecond() / 1000 % 1000), value.FieldSubsecond: strconv.Itoa(tm.Nanosecond() / 1000),
					value.FieldEpoch: strconv.FormatInt(tm.Unix(), 10),
				},
			}[as]
			if field == value.FieldEpoch && as == ExtractNumeric {
				if isDate {
					wantSec[field] = strconv.FormatInt(tm.Unix(), 10)
				} else {
					wantSec[field] = value.FormatDecimal(decimal128.FromI64(us), 6)
				}
			}
			require.Equal(t, wantSec[field], got[0], "%d %s of %s", as, field, tm)
			return
		}
		w := strconv.FormatInt(want, 10)
		require.Equal(t, w, got[0], "%d %s of %s", as, field, tm)
	})
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
