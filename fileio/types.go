package fileio

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// EngineType maps a file column's Arrow type to the engine's column type:
// integers to int64 (uint64 only when it fits, checked per value), floats
// to float64, strings to text, bool. Anything else is ErrUnsupportedType
// naming the column.
func EngineType(f arrow.Field) (arrow.DataType, error) {
	switch f.Type.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return arrow.PrimitiveTypes.Int64, nil
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return arrow.PrimitiveTypes.Float64, nil
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return arrow.BinaryTypes.String, nil
	case arrow.BOOL:
		return arrow.FixedWidthTypes.Boolean, nil
	}
	return nil, fmt.Errorf("%w: column %q has type %s", ErrUnsupportedType, f.Name, f.Type)
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
			if !arrow.TypeEqual(et, tf.Type) {
				release()
				return nil, fmt.Errorf("%w: file column %q (%s) does not fit column %q (%s)", ErrSchema, sf.Name, sf.Type, tf.Name, tf.Type)
			}
			out, err := compute.CastArray(compute.WithAllocator(ctx, mem), src, compute.SafeCastOptions(tf.Type))
			if err != nil {
				release()
				return nil, fmt.Errorf("%w: column %q: %w", ErrFormat, sf.Name, err)
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
