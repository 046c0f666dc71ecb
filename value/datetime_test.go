package value

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stretchr/testify/require"
)

// TestDateCivilAgainstGoTime checks the calendar arithmetic against Go's
// time package (proleptic Gregorian, the same calendar PostgreSQL uses)
// over random days from year 1 to 9999 and the edges.
func TestDateCivilAgainstGoTime(t *testing.T) {
	epoch := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	lo := int32(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Sub(epoch).Hours() / 24)
	hi := int32(time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC).Sub(epoch).Hours() / 24)
	r := rand.New(rand.NewPCG(1, 2))
	days := []int32{lo, hi, 0, -1, 1, 11016, 19782, 19783}
	for range 20000 {
		days = append(days, lo+r.Int32N(hi-lo+1))
	}
	for _, d := range days {
		want := epoch.AddDate(0, 0, int(d)).Format("2006-01-02")
		require.Equal(t, want, FormatDate(d), "day %d", d)
		back, err := ParseDate(want)
		require.NoError(t, err)
		require.Equal(t, d, back, want)
		us := int64(d)*usPerDay + r.Int64N(usPerDay)
		tm := epoch.AddDate(0, 0, int(d)).Add(time.Duration(us-int64(d)*usPerDay) * time.Microsecond)
		wantTS := tm.Format("2006-01-02 15:04:05.999999")
		require.Equal(t, wantTS, FormatTimestamp(us))
		backTS, err := ParseTimestamp(wantTS)
		require.NoError(t, err)
		require.Equal(t, us, backTS, wantTS)
		require.Equal(t, d, TimestampToDate(us))
	}
}

// TestDateInput: PostgreSQL 15's answers (psql) for the ISO forms and its
// two errors.
func TestDateInput(t *testing.T) {
	for in, want := range map[string]string{
		"2024-2-3": "2024-02-03", " 2024-02-03 ": "2024-02-03", "20240203": "2024-02-03",
		"0001-01-01": "0001-01-01", "2024-02-03 10:00": "2024-02-03", "2000-02-29": "2000-02-29",
	} {
		d, err := ParseDate(in)
		require.NoError(t, err, in)
		require.Equal(t, want, FormatDate(d), in)
	}
	for in, want := range map[string]string{
		"2024-02-03 10:11:12.1234567": "2024-02-03 10:11:12.123457",
		"2024-02-03T10:11:12":         "2024-02-03 10:11:12",
		"2024-02-03":                  "2024-02-03 00:00:00",
		"2024-01-01 24:00:00":         "2024-01-02 00:00:00",
		"2024-01-01 23:59:60":         "2024-01-02 00:00:00",
		"2024-02-03 10:11:12.5":       "2024-02-03 10:11:12.5",
	} {
		us, err := ParseTimestamp(in)
		require.NoError(t, err, in)
		require.Equal(t, want, FormatTimestamp(us), in)
	}
	for _, in := range []string{"2023-02-29", "1900-02-29", "2023-13-01", "2023-00-10", "2024-04-31", "0000-01-01", "2024-01-01 25:00:00", "2024-01-01 24:00:01"} {
		_, err := ParseTimestamp(in)
		require.ErrorIs(t, err, errkind.OutOfRange, in)
		require.Contains(t, err.Error(), "date/time field value out of range", in)
	}
	for _, in := range []string{"x", "", "2024", "2024-01", "2024-01-01x", "2024/01/01", "2024-01-01 10", "2024-01-01 10:1", "2024-001-01", "2024-01-01 10:00:00."} {
		_, err := ParseDate(in)
		require.ErrorIs(t, err, errkind.InvalidArgument, in)
		require.Contains(t, err.Error(), `invalid input syntax for type date: "`+in+`"`, in)
	}
	// BC output (year 0 is 1 BC), as date_out prints it.
	require.Equal(t, "0001-12-31 BC", FormatDate(int32(daysFromCivil(1, 1, 1)-1)))
	require.Equal(t, "4714-11-24 BC", FormatDate(MinDate))
	require.Equal(t, "5874897-12-31", FormatDate(EndDate-1))
}

func TestDateAddDaysRange(t *testing.T) {
	d, err := DateAddDays(EndDate-2, 1)
	require.NoError(t, err)
	require.Equal(t, int32(EndDate-1), d)
	_, err = DateAddDays(EndDate-1, 1)
	require.ErrorIs(t, err, errkind.OutOfRange)
	_, err = DateAddDays(MinDate, -1)
	require.ErrorIs(t, err, errkind.OutOfRange)
	_, err = DateAddDays(0, 1<<40)
	require.ErrorIs(t, err, errkind.OutOfRange)
}

// FuzzParseDateTime: any input is a value or one of the two typed
// errors, never a panic; a value prints back to a string that reads
// back to the same value.
func FuzzParseDateTime(f *testing.F) {
	for _, s := range []string{"2024-02-29", "20240229", "2024-02-29 10:11:12.123456", "0001-01-01", "x", "2024-1-1T24:00:00", "5874897-12-31", "9999999-01-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseDate(s); err == nil {
			back, err := ParseDate(FormatDate(d))
			if err != nil || back != d {
				t.Fatalf("%q -> %d -> %q -> %d, %v", s, d, FormatDate(d), back, err)
			}
		} else if !errors.Is(err, errkind.OutOfRange) && !errors.Is(err, errkind.InvalidArgument) {
			t.Fatalf("%q: untyped error %v", s, err)
		}
		if us, err := ParseTimestamp(s); err == nil {
			back, err := ParseTimestamp(FormatTimestamp(us))
			if err != nil || back != us {
				t.Fatalf("%q -> %d -> %q -> %d, %v", s, us, FormatTimestamp(us), back, err)
			}
		} else if !errors.Is(err, errkind.OutOfRange) && !errors.Is(err, errkind.InvalidArgument) {
			t.Fatalf("%q: untyped error %v", s, err)
		}
	})
}
