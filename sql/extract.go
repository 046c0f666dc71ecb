package sql

import (
	"errors"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/stablerow/stablerow/internal/substraitfn"
	sqlvalue "github.com/stablerow/stablerow/value"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
)

// extract(field FROM x) and date_part('field', x) over a date or a
// timestamp, PostgreSQL 15's: extract returns numeric (second with its
// six fractional digits, an epoch of a timestamp too, milliseconds three),
// date_part double precision; date_part of a date is date_part of its
// midnight (PostgreSQL's date_part(text, date) casts to timestamp), while
// extract of a date refuses the time fields ("unit "hour" not supported
// for type date"). Both lower to Substrait's extract with the component
// the field names and the result type telling the planner which
// (physexpr.Extract). The field is a constant: extract's grammar makes it
// one, and date_part of a column of field names is refused.

// extractComponents maps a field to Substrait's component and indexing
// option (PostgreSQL's dow counts from Sunday = 0: SUNDAY_DAY_OF_WEEK
// indexed from ZERO; its week is the ISO week). decade, century and
// millennium have no component and are refused.
var extractComponents = map[sqlvalue.ExtractField][2]string{
	sqlvalue.FieldYear:         {"YEAR", ""},
	sqlvalue.FieldISOYear:      {"ISO_YEAR", ""},
	sqlvalue.FieldQuarter:      {"QUARTER", "ONE"},
	sqlvalue.FieldMonth:        {"MONTH", "ONE"},
	sqlvalue.FieldWeek:         {"ISO_WEEK", "ONE"},
	sqlvalue.FieldDay:          {"DAY", "ONE"},
	sqlvalue.FieldDOW:          {"SUNDAY_DAY_OF_WEEK", "ZERO"},
	sqlvalue.FieldISODOW:       {"MONDAY_DAY_OF_WEEK", "ONE"},
	sqlvalue.FieldDOY:          {"DAY_OF_YEAR", "ONE"},
	sqlvalue.FieldHour:         {"HOUR", ""},
	sqlvalue.FieldMinute:       {"MINUTE", ""},
	sqlvalue.FieldSecond:       {"SECOND", ""},
	sqlvalue.FieldMilliseconds: {"MILLISECOND", ""},
	sqlvalue.FieldMicroseconds: {"MICROSECOND", ""},
	sqlvalue.FieldEpoch:        {"UNIX_TIME", ""},
}

// lowerExtract is extract (numeric) and date_part (double precision).
func lowerExtract(numeric bool) func(*lowerer, *pg_query.FuncCall, []value) (expr.Expression, error) {
	return func(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
		name := "date_part"
		if numeric {
			name = "extract"
		}
		unit, ok := "", false
		if args[0].how == untypedString {
			unit, ok = args[0].str, true
		} else if args[0].how == typed && args[0].kind().Stringy() {
			if lit, isLit := literalOf(args[0].e); isLit {
				unit, ok = lit.(string)
			}
		}
		if !ok {
			return nil, fmt.Errorf("%w: %s with a field that is not a string constant%s", ErrUnsupported, name, l.src.at(f.Location))
		}
		x := args[1]
		k := x.kind()
		if x.how != typed || !k.Datetime() {
			return nil, fmt.Errorf("%w: %s of %s (it takes a date or a timestamp)%s", ErrType, name, l.describeKind(x), l.src.at(x.loc))
		}
		typName := "date"
		if k == kindTimestamp {
			typName = "timestamp without time zone"
		}
		field, err := sqlvalue.ParseExtractField(unit, typName)
		switch {
		case errors.Is(err, sqlvalue.ErrUnsupported):
			return nil, fmt.Errorf("%w: %w%s", ErrUnsupported, err, l.src.at(f.Location))
		case err != nil:
			return nil, fmt.Errorf("%w: %w%s", ErrInvalid, err, l.src.at(f.Location))
		}
		comp, ok := extractComponents[field]
		if !ok {
			return nil, fmt.Errorf("%w: %s(%s) (Substrait's extract has no such component)%s", ErrUnsupported, name, field, l.src.at(f.Location))
		}
		e := x.e
		out := types.Type(&types.Float64Type{})
		switch {
		case numeric && k == kindDate && field.TimeField():
			return nil, fmt.Errorf("%w: unit %q not supported for type date%s", ErrUnsupported, field.String(), l.src.at(f.Location))
		case numeric:
			t := sqlvalue.ExtractNumericType(field, k == kindDate)
			out = &types.DecimalType{Precision: t.Precision, Scale: t.Scale}
		case k == kindDate:
			if e, err = l.cast(e, kindTimestamp, false, x.loc); err != nil {
				return nil, err
			}
		}
		call, err := substraitfn.Extract(l.b.GetExprBuilder().Reg, comp[0], comp[1], e, out)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w%s", ErrType, name, err, l.src.at(f.Location))
		}
		// Strict and immutable: NULL of a NULL constant, the value of
		// another constant (constfold.go), so date_part('second',
		// NULL::date) + (k + k) never adds (seed 20261206 case 38520).
		return foldCall("extract", call, []expr.Expression{e}), nil
	}
}
