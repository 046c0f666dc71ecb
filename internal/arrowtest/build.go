package arrowtest

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Batch builds a batch from rows of Go values; nil is NULL. Supported field
// types: int32, int64, uint32, uint64, float64, string, bool.
func Batch(mem memory.Allocator, schema *arrow.Schema, rows [][]any) (arrow.RecordBatch, error) {
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	for r, row := range rows {
		if len(row) != schema.NumFields() {
			return nil, fmt.Errorf("exectest: row %d has %d values, schema %d", r, len(row), schema.NumFields())
		}
		for c, v := range row {
			fb := rb.Field(c)
			if v == nil {
				fb.AppendNull()
				continue
			}
			ok := true
			switch b := fb.(type) {
			case *array.Int32Builder:
				var x int32
				x, ok = v.(int32)
				b.Append(x)
			case *array.Int64Builder:
				var x int64
				x, ok = v.(int64)
				b.Append(x)
			case *array.Uint32Builder:
				var x uint32
				x, ok = v.(uint32)
				b.Append(x)
			case *array.Uint64Builder:
				var x uint64
				x, ok = v.(uint64)
				b.Append(x)
			case *array.Float64Builder:
				var x float64
				x, ok = v.(float64)
				b.Append(x)
			case *array.StringBuilder:
				var x string
				x, ok = v.(string)
				b.Append(x)
			case *array.BooleanBuilder:
				var x bool
				x, ok = v.(bool)
				b.Append(x)
			default:
				return nil, fmt.Errorf("exectest: unsupported type %s", schema.Field(c).Type)
			}
			if !ok {
				return nil, fmt.Errorf("exectest: row %d col %d: %T for %s", r, c, v, schema.Field(c).Type)
			}
		}
	}
	return rb.NewRecordBatch(), nil
}

// Rows converts batches to Go values (nil for NULL).
func Rows(bs ...arrow.RecordBatch) ([][]any, error) {
	var out [][]any
	for _, b := range bs {
		for r := 0; r < int(b.NumRows()); r++ {
			row := make([]any, b.NumCols())
			for c := range row {
				v, err := value(b.Column(c), r)
				if err != nil {
					return nil, err
				}
				row[c] = v
			}
			out = append(out, row)
		}
	}
	return out, nil
}

func value(a arrow.Array, i int) (any, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch a := a.(type) {
	case *array.Int32:
		return a.Value(i), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Uint32:
		return a.Value(i), nil
	case *array.Uint64:
		return a.Value(i), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.String:
		return a.Value(i), nil
	case *array.Boolean:
		return a.Value(i), nil
	}
	return nil, fmt.Errorf("exectest: unsupported type %s", a.DataType())
}
