package value

import (
	"fmt"
	"math"
	"math/bits"
)

// TimestampAddInterval is PostgreSQL's timestamp + interval
// (timestamp_pl_interval): the interval's months first, moving the
// year-month and clamping the day to the new month's last (Jan 31 + 1
// month is Feb 28 or 29), then its days on the calendar, then its
// microseconds. A result outside the valid timestamps (MinTimestamp up to
// what int64 microseconds hold) is "timestamp out of range".
func TimestampAddInterval(us, months, days, micros int64) (int64, error) {
	outOfRange := errTimestampRange
	day := us / usPerDay
	tod := us % usPerDay
	if tod < 0 {
		day, tod = day-1, tod+usPerDay
	}
	if months != 0 {
		y, m, d := civilFromDays(day)
		// Months since year 0, moved; a step beyond any calendar is out
		// of range rather than wrapping.
		if months > math.MaxInt32 || months < math.MinInt32 {
			return 0, outOfRange
		}
		mm := y*12 + (m - 1) + months
		y, m = floorDiv(mm, 12), mm-floorDiv(mm, 12)*12+1
		if y > 300000 || y < -5000 {
			return 0, outOfRange
		}
		day = daysFromCivil(y, m, min(d, daysIn(y, m)))
	}
	if days > math.MaxInt32 || days < math.MinInt32 {
		return 0, outOfRange
	}
	day += days
	// day*usPerDay + tod + micros, each step checked for int64 overflow.
	hi, lo := bits.Mul64(uint64(abs64(day)), usPerDay)
	if hi != 0 || lo > math.MaxInt64 {
		return 0, outOfRange
	}
	r := int64(lo)
	if day < 0 {
		r = -r
	}
	var ok bool
	if r, ok = addChecked(r, tod); !ok {
		return 0, outOfRange
	}
	if r, ok = addChecked(r, micros); !ok || r < MinTimestamp {
		return 0, outOfRange
	}
	return r, nil
}

// errTimestampRange is made once: TimestampAddInterval runs per value of
// a series.
var errTimestampRange = fmt.Errorf("%w: timestamp out of range", ErrOutOfRange)

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func addChecked(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0) || b == 0
}
