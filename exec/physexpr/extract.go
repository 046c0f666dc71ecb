package physexpr

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/value"
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
	Field  value.ExtractField
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
	if !e.Field.Known() {
		return nil, fmt.Errorf("%w: extract field %d", ErrInvalidArgument, e.Field)
	}
	if e.Field == value.FieldSubsecond && e.As != ExtractInteger {
		return nil, fmt.Errorf("%w: subsecond is Substrait's integer extract only", ErrInvalidArgument)
	}
	if isDate && e.As == ExtractNumeric && e.Field.TimeField() {
		return nil, fmt.Errorf("%w: unit %q not supported for type date", ErrUnsupported, e.Field.String())
	}
	if e.Offset != 0 && (e.Field.TimeField() || e.Field == value.FieldEpoch) {
		return nil, fmt.Errorf("%w: an offset on %s", ErrInvalidArgument, e.Field)
	}
	out := arrow.DataType(arrow.PrimitiveTypes.Int64)
	switch e.As {
	case ExtractDouble:
		out = arrow.PrimitiveTypes.Float64
	case ExtractNumeric:
		out = value.ExtractNumericType(e.Field, isDate)
	case ExtractInteger:
	default:
		return nil, fmt.Errorf("%w: extract result form %d", ErrInvalidArgument, e.As)
	}
	return boundExtract{exprOf: exprOf[Extract]{e}, x: x, date: isDate, out: out}, nil
}

type boundExtract struct {
	exprOf[Extract]
	x    Bound
	date bool
	out  arrow.DataType
}

func (e boundExtract) Type() arrow.DataType { return e.out }

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
	var at func(i int) (value.Parts, int64, bool)
	if e.date {
		o, err := operandOf[int32](d)
		if err != nil {
			return nil, err
		}
		at = func(i int) (value.Parts, int64, bool) { return value.SplitDate(int64(o.at(i))), 0, o.valid(i) }
	} else {
		o, err := operandOf[int64](d)
		if err != nil {
			return nil, err
		}
		at = func(i int) (value.Parts, int64, bool) { return value.SplitTimestamp(o.at(i)), o.at(i), o.valid(i) }
	}
	a, err := e.kernel(mem, n, at)
	if err != nil {
		return nil, err
	}
	return result(a, asScalar)
}

func (e boundExtract) kernel(mem memory.Allocator, n int, at func(int) (value.Parts, int64, bool)) (arrow.Array, error) {
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
				if us, err = value.DateToTimestamp(int32(p.Days())); err != nil {
					out.release()
					return nil, err
				}
			}
			out.v[i] = value.ExtractDouble(f, p, us) + float64(e.src.Offset)
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
			if f == value.FieldEpoch && e.date {
				out.v[i] = p.Days() * 86400
				continue
			}
			out.v[i] = value.ExtractInteger(f, p, us) + e.src.Offset
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
		bld.Append(decimal128.FromI64(value.ExtractUnscaled(f, p, us, e.date) + e.src.Offset))
	}
	return bld.NewArray(), nil
}
