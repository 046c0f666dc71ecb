package fileio

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/errkind"
)

// EngineType maps a file column's Arrow type to the engine's column type,
// exactly where the engine has the type (PostgreSQL's): int16 is
// smallint, int32 integer, int64 bigint, float32 real, float64 double
// precision, date32 date, a microsecond timestamp without a time zone
// timestamp, decimal128(p, s) numeric(p, s), strings text, bool boolean.
// The other widths widen to the nearest type that holds every value:
// int8 and uint8 to smallint, uint16 to integer, uint32 to bigint, uint64
// to bigint (checked per value), float16 to real, and timestamps of
// another unit to microseconds (checked: a nanosecond is lost, a second
// may overflow). Anything else (a time zone, decimal256, lists, ...) is
// ErrUnsupportedType naming the column.
func EngineType(f arrow.Field) (arrow.DataType, error) {
	switch f.Type.ID() {
	case arrow.INT8, arrow.UINT8, arrow.INT16:
		return arrow.PrimitiveTypes.Int16, nil
	case arrow.UINT16, arrow.INT32:
		return arrow.PrimitiveTypes.Int32, nil
	case arrow.UINT32, arrow.INT64, arrow.UINT64:
		return arrow.PrimitiveTypes.Int64, nil
	case arrow.FLOAT16, arrow.FLOAT32:
		return arrow.PrimitiveTypes.Float32, nil
	case arrow.FLOAT64:
		return arrow.PrimitiveTypes.Float64, nil
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return arrow.BinaryTypes.String, nil
	case arrow.BOOL:
		return arrow.FixedWidthTypes.Boolean, nil
	case arrow.DATE32:
		return arrow.FixedWidthTypes.Date32, nil
	case arrow.TIMESTAMP:
		if f.Type.(*arrow.TimestampType).TimeZone == "" {
			return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
		}
	case arrow.DECIMAL128:
		return f.Type, nil
	}
	return nil, fmt.Errorf("%w: column %q has type %s", ErrUnsupportedType, f.Name, f.Type)
}

// fits reports whether a column of engine type from may be read into a
// table column of type to with a checked cast: integers into integers
// (a value out of range is an error), integers and reals into floats,
// decimals into decimals (rescaled, "numeric field overflow" past the
// precision), dates and timestamps into their own type.
func fits(from, to arrow.DataType) bool {
	isInt := func(t arrow.DataType) bool {
		switch t.ID() {
		case arrow.INT16, arrow.INT32, arrow.INT64:
			return true
		}
		return false
	}
	isFloat := func(t arrow.DataType) bool { return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64 }
	switch {
	case arrow.TypeEqual(from, to):
		return true
	case isInt(from) && isInt(to), isInt(from) && isFloat(to), from.ID() == arrow.FLOAT32 && to.ID() == arrow.FLOAT64:
		return true
	case from.ID() == arrow.DECIMAL128 && to.ID() == arrow.DECIMAL128:
		return true
	}
	return false
}

// EngineSchema maps every field of s with EngineType.
func EngineSchema(s *arrow.Schema) (*arrow.Schema, error) {
	fields := make([]arrow.Field, s.NumFields())
	for i, f := range s.Fields() {
		t, err := EngineType(f)
		if err != nil {
			return nil, err
		}
		fields[i] = arrow.Field{Name: f.Name, Type: t, Nullable: true}
	}
	return arrow.NewSchema(fields, nil), nil
}

// Conform casts b's columns, by position, to target's types. A column whose
// type cannot become its target's is ErrSchema naming both columns; a
// value that does not fit (a uint64 above int64's range) is out of range.
// The caller owns the result.
func Conform(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, target *arrow.Schema) (arrow.RecordBatch, error) {
	if int(b.NumCols()) != target.NumFields() {
		return nil, fmt.Errorf("%w: the file has %d columns, the table %d", ErrSchema, b.NumCols(), target.NumFields())
	}
	cols := make([]arrow.Array, target.NumFields())
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for i, tf := range target.Fields() {
		src := b.Column(i)
		sf := b.Schema().Field(i)
		if arrow.TypeEqual(src.DataType(), tf.Type) {
			src.Retain()
			cols[i] = src
		} else {
			et, err := EngineType(sf)
			if err != nil {
				release()
				return nil, err
			}
			if !fits(et, tf.Type) {
				release()
				return nil, fmt.Errorf("%w: file column %q (%s) does not fit column %q (%s)", ErrSchema, sf.Name, sf.Type, tf.Name, tf.Type)
			}
			// The file's type to its engine type, then to the column's:
			// each step a safe cast (overflow and lost digits are errors).
			out, err := compute.CastArray(compute.WithAllocator(ctx, mem), src, compute.SafeCastOptions(et))
			if err == nil && !arrow.TypeEqual(et, tf.Type) {
				next, cerr := compute.CastArray(compute.WithAllocator(ctx, mem), out, compute.SafeCastOptions(tf.Type))
				out.Release()
				out, err = next, cerr
			}
			if err != nil {
				release()
				return nil, fmt.Errorf("%w: column %q: %w", errkind.OutOfRange, sf.Name, err)
			}
			cols[i] = out
		}
		if !tf.Nullable && cols[i].NullN() > 0 {
			release()
			return nil, fmt.Errorf("%w: null value in column %q violates not-null constraint", ErrSchema, tf.Name)
		}
	}
	out := newBatch(target, cols, b.NumRows())
	release()
	return out, nil
}
