package sql

import (
	"fmt"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// now(), CURRENT_TIMESTAMP, LOCALTIMESTAMP and CURRENT_DATE (issue 29)
// are PostgreSQL's stable functions of the transaction's start
// (GetCurrentTransactionStartTimestamp): one value for every row and
// every call of a statement, and of every statement of a BEGIN ... COMMIT
// block. They lower to constants of the time the Catalog gives
// (StatementClock), taken once per statement, so they fold like any
// constant and the plan holds the value (EXPLAIN shows it).
//
// stablerow has no timestamptz: now() and CURRENT_TIMESTAMP are
// timestamp (without time zone) values of the UTC wall clock, which is
// PostgreSQL's timestamptz under TimeZone 'UTC' without its +00; the
// session time zone is UTC, so LOCALTIMESTAMP is the same value and
// CURRENT_DATE the UTC date. CURRENT_TIME and LOCALTIME (time types) are
// refused by name.

// StatementClock is a Catalog that fixes the time a statement sees: the
// start of its transaction block, or of the statement outside one. A
// Catalog without it gives the time the statement is lowered.
type StatementClock interface {
	StatementTime() time.Time
}

// statementTime is the statement's one time, asked of the catalog at the
// first use and kept for the rest of the statement.
func (l *lowerer) statementTime() time.Time {
	if l.now.IsZero() {
		if c, ok := l.cat.(StatementClock); ok {
			l.now = c.StatementTime()
		}
		if l.now.IsZero() {
			l.now = time.Now()
		}
	}
	return l.now
}

// timestampAt is t as a timestamp of microseconds (PostgreSQL's
// precision) rounded to digits fractional digits, as
// AdjustTimestampForTypmod rounds; digits < 0: not rounded.
func timestampAt(t time.Time, digits int32) int64 {
	us := t.UnixMicro()
	if digits < 0 || digits >= 6 {
		return us
	}
	scale := int64(1)
	for i := digits; i < 6; i++ {
		scale *= 10
	}
	if us >= 0 {
		return (us + scale/2) / scale * scale
	}
	return -((-us + scale/2) / scale * scale)
}

// dateAt is t's UTC date, in days since 1970-01-01.
func dateAt(t time.Time) int32 {
	us := t.UnixMicro()
	days := us / 86_400_000_000
	if us < 0 && us%86_400_000_000 != 0 {
		days--
	}
	return int32(days)
}

// timestampNow is the statement's time as a timestamp constant.
func (l *lowerer) timestampNow(digits int32) expr.Expression {
	return newLiteral(tsLit(timestampAt(l.statementTime(), digits)), false)
}

// lowerNow is now() and transaction_timestamp().
func lowerNow(l *lowerer, _ *pg_query.FuncCall, _ []value) (expr.Expression, error) {
	return l.timestampNow(-1), nil
}

// sqlValueFunction lowers CURRENT_DATE, CURRENT_TIMESTAMP[(n)] and
// LOCALTIMESTAMP[(n)]; the others (CURRENT_TIME, CURRENT_USER, ...) are
// refused by name. Its column is named as PostgreSQL names it.
func (l *lowerer) sqlValueFunction(f *pg_query.SQLValueFunction) (value, error) {
	digits := int32(-1)
	switch f.Op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		digits = f.Typmod
		if digits < 0 {
			return value{}, fmt.Errorf("%w: TIMESTAMP(%d) precision must not be negative%s", ErrInvalid, digits, l.src.at(f.Location))
		}
	}
	switch f.Op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return value{e: newLiteral(dateLit(dateAt(l.statementTime())), false), loc: f.Location, name: "current_date"}, nil
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return value{e: l.timestampNow(digits), loc: f.Location, name: "current_timestamp"}, nil
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return value{e: l.timestampNow(digits), loc: f.Location, name: "localtimestamp"}, nil
	}
	return value{}, fmt.Errorf("%w: %s%s", ErrUnsupported, svfName(f.Op), l.src.at(f.Location))
}

// svfName is a SQLValueFunction's SQL spelling (SVFOP_CURRENT_TIME:
// CURRENT_TIME).
func svfName(op pg_query.SQLValueFunctionOp) string {
	name := op.String()
	const prefix = "SVFOP_"
	if len(name) > len(prefix) && name[:len(prefix)] == prefix {
		name = name[len(prefix):]
	}
	if n := len(name); n > 2 && name[n-2:] == "_N" {
		name = name[:n-2] + "(n)"
	}
	return name
}
