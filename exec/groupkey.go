package exec

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// groupKeyOK reports whether values of t can be group keys (and DISTINCT or
// set-operation columns): the types encodeGroupKey and appendValue know.
func groupKeyOK(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.BOOL, arrow.DATE32, arrow.DECIMAL128:
		return true
	case arrow.TIMESTAMP:
		return t.(*arrow.TimestampType).TimeZone == ""
	}
	return false
}

// Key bytes: each column starts with a tag byte, 0 for NULL (and nothing
// after it) or 1 for a value, so NULL is a group of its own and never equal
// to any value, as GROUP BY, DISTINCT and the set operations want
// (PostgreSQL: "two NULLs are not distinct"). Strings carry a length
// prefix, so a multi-column encoding is unambiguous.
const (
	keyNull  = 0
	keyValue = 1
)

// encodeGroupKey appends row's key over cols to buf. Floats are
// canonicalized the way PostgreSQL's float equality sees them: -0 is 0 and
// every NaN is one value (NaN = NaN is true for float8 in PostgreSQL).
func encodeGroupKey(buf []byte, cols []arrow.Array, row int) []byte {
	for _, c := range cols {
		if c.IsNull(row) {
			buf = append(buf, keyNull)
			continue
		}
		buf = append(buf, keyValue)
		buf = appendKeyValue(buf, c, row)
	}
	return buf
}

// appendKeyValue appends the bytes of c's non-NULL value at row, the one
// key encoding the group table and the hash join share: floats as
// PostgreSQL's equality sees them (-0 is 0, every NaN one value), strings
// length-prefixed so a multi-column key is unambiguous, a decimal as its
// unscaled integer (one column has one scale).
func appendKeyValue(buf []byte, c arrow.Array, row int) []byte {
	switch a := c.(type) {
	case *array.Int8:
		buf = append(buf, byte(a.Value(row)))
	case *array.Int16:
		buf = binary.LittleEndian.AppendUint16(buf, uint16(a.Value(row)))
	case *array.Int32:
		buf = binary.LittleEndian.AppendUint32(buf, uint32(a.Value(row)))
	case *array.Int64:
		buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(row)))
	case *array.Uint8:
		buf = append(buf, a.Value(row))
	case *array.Uint16:
		buf = binary.LittleEndian.AppendUint16(buf, a.Value(row))
	case *array.Uint32:
		buf = binary.LittleEndian.AppendUint32(buf, a.Value(row))
	case *array.Uint64:
		buf = binary.LittleEndian.AppendUint64(buf, a.Value(row))
	case *array.Float32:
		buf = binary.LittleEndian.AppendUint64(buf, canonicalFloat(float64(a.Value(row))))
	case *array.Float64:
		buf = binary.LittleEndian.AppendUint64(buf, canonicalFloat(a.Value(row)))
	case *array.String:
		v := a.Value(row)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(v)))
		buf = append(buf, v...)
	case *array.Boolean:
		if a.Value(row) {
			buf = append(buf, 1)
		} else {
			buf = append(buf, 0)
		}
	case *array.Date32:
		buf = binary.LittleEndian.AppendUint32(buf, uint32(a.Value(row)))
	case *array.Timestamp:
		buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(row)))
	case *array.Decimal128:
		// One column has one scale, so equal numbers are equal
		// unscaled integers (numeric's 1.50 = 1.5 needs no rescaling).
		buf = appendDecimalKey(buf, a, row)
	}
	return buf
}

func appendDecimalKey(buf []byte, a *array.Decimal128, row int) []byte {
	v := a.Value(row)
	buf = binary.LittleEndian.AppendUint64(buf, v.LowBits())
	return binary.LittleEndian.AppendUint64(buf, uint64(v.HighBits()))
}

func canonicalFloat(f float64) uint64 {
	switch {
	case f == 0:
		return 0 // -0 = 0
	case math.IsNaN(f):
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(f)
}

// appendValue appends row of a (NULL or a value) to b, a builder of a's type.
func appendValue(b array.Builder, a arrow.Array, row int) error {
	if a.IsNull(row) {
		b.AppendNull()
		return nil
	}
	switch a := a.(type) {
	case *array.Int8:
		b.(*array.Int8Builder).Append(a.Value(row))
	case *array.Int16:
		b.(*array.Int16Builder).Append(a.Value(row))
	case *array.Int32:
		b.(*array.Int32Builder).Append(a.Value(row))
	case *array.Int64:
		b.(*array.Int64Builder).Append(a.Value(row))
	case *array.Uint8:
		b.(*array.Uint8Builder).Append(a.Value(row))
	case *array.Uint16:
		b.(*array.Uint16Builder).Append(a.Value(row))
	case *array.Uint32:
		b.(*array.Uint32Builder).Append(a.Value(row))
	case *array.Uint64:
		b.(*array.Uint64Builder).Append(a.Value(row))
	case *array.Float32:
		b.(*array.Float32Builder).Append(a.Value(row))
	case *array.Float64:
		b.(*array.Float64Builder).Append(a.Value(row))
	case *array.String:
		b.(*array.StringBuilder).Append(a.Value(row))
	case *array.Boolean:
		b.(*array.BooleanBuilder).Append(a.Value(row))
	case *array.Date32:
		b.(*array.Date32Builder).Append(a.Value(row))
	case *array.Timestamp:
		b.(*array.TimestampBuilder).Append(a.Value(row))
	case *array.Decimal128:
		b.(*array.Decimal128Builder).Append(a.Value(row))
	default:
		return fmt.Errorf("%w: group key type %s", physexpr.ErrInvalidArgument, a.DataType())
	}
	return nil
}
