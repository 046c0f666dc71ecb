package plan

import (
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// dayInterval compiles an interval_day literal that is an operand of add
// or subtract (functions_datetime's add:date_iday, subtract:date_iday;
// Isthmus writes TPC-H Q1's date '1998-12-01' - interval '120' day so,
// as interval_day<6>) as its whole number of days, an int32: the engine
// has no interval type, and date ± days is its date arithmetic
// (physexpr's date ± integer, PostgreSQL's date_pli / date_mii), which
// gives the date the Substrait function declares. An interval with
// seconds or subseconds is refused by name: a date moved by part of a
// day is a timestamp, which the declared date result cannot hold. ok is
// false for any other expression.
func dayInterval(e expr.Expression) (x physexpr.Expr, ok bool, err error) {
	l, isLit := e.(expr.Literal)
	if !isLit {
		return nil, false, nil
	}
	iv := l.ToProtoLiteral().GetIntervalDayToSecond()
	if iv == nil {
		return nil, false, nil
	}
	if iv.GetSeconds() != 0 || iv.GetSubseconds() != 0 {
		return nil, true, fmt.Errorf("%w: interval_day literal with seconds (%d days, %d seconds, %d subseconds) in date arithmetic", errUnsupported("expression"), iv.GetDays(), iv.GetSeconds(), iv.GetSubseconds())
	}
	return physexpr.Lit{Value: iv.GetDays()}, true, nil
}
