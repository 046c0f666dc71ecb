package btree

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// keyKind is the on-disk code of a KeyType.
type keyKind uint8

const (
	kindInt64   keyKind = 1
	kindUint64  keyKind = 2
	kindFloat64 keyKind = 3
	kindString  keyKind = 4
	// The narrower SQL types map into the same two key domains, each
	// order-preserving and exact: integer, smallint and date (days) as
	// int64, real as float64 (every float32 is a float64), numeric as
	// the 16 big-endian bytes of its unscaled value with the sign bit
	// flipped, compared as a string (an index holds one column, so one
	// scale).
	kindInt32   keyKind = 5
	kindInt16   keyKind = 6
	kindFloat32 keyKind = 7
	kindDate32  keyKind = 8
	kindDecimal keyKind = 9
	// timestamp (microseconds) and boolean (0, 1) in the int64 domain.
	kindTimestamp keyKind = 10
	kindBool      keyKind = 11
)

// stringy: the kinds whose keys are strings (front-coded pages).
func (k keyKind) stringy() bool { return k == kindString || k == kindDecimal || k == kindComposite }

// decimalKey is v's order-preserving string key.
func decimalKey(v decimal128.Num) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(v.HighBits())^(1<<63))
	binary.BigEndian.PutUint64(b[8:], v.LowBits())
	return string(b[:])
}

// kindOf maps a supported Arrow type to its code.
func kindOf(dt arrow.DataType) (keyKind, error) {
	if dt == nil {
		return 0, fmt.Errorf("%w: nil key type", ErrKeyType)
	}
	switch dt.ID() {
	case arrow.INT64:
		return kindInt64, nil
	case arrow.UINT64:
		return kindUint64, nil
	case arrow.FLOAT64:
		return kindFloat64, nil
	case arrow.STRING:
		return kindString, nil
	case arrow.INT32:
		return kindInt32, nil
	case arrow.INT16:
		return kindInt16, nil
	case arrow.FLOAT32:
		return kindFloat32, nil
	case arrow.DATE32:
		return kindDate32, nil
	case arrow.DECIMAL128:
		return kindDecimal, nil
	case arrow.TIMESTAMP:
		if dt.(*arrow.TimestampType).Unit == arrow.Microsecond && dt.(*arrow.TimestampType).TimeZone == "" {
			return kindTimestamp, nil
		}
	case arrow.BOOL:
		return kindBool, nil
	}
	return 0, fmt.Errorf("%w: unsupported key type %s", ErrKeyType, dt)
}

func (k keyKind) dataType() arrow.DataType {
	switch k {
	case kindInt64:
		return arrow.PrimitiveTypes.Int64
	case kindUint64:
		return arrow.PrimitiveTypes.Uint64
	case kindFloat64:
		return arrow.PrimitiveTypes.Float64
	case kindString:
		return arrow.BinaryTypes.String
	case kindInt32:
		return arrow.PrimitiveTypes.Int32
	case kindInt16:
		return arrow.PrimitiveTypes.Int16
	case kindFloat32:
		return arrow.PrimitiveTypes.Float32
	case kindDate32:
		return arrow.FixedWidthTypes.Date32
	case kindTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case kindBool:
		return arrow.FixedWidthTypes.Boolean
	case kindComposite:
		// composite.go: keys are order-preserving byte strings.
		return arrow.BinaryTypes.Binary
	case kindDecimal:
		// The file does not record precision and scale: the column's
		// (every key of one index has them).
		return &arrow.Decimal128Type{Precision: 38, Scale: 0}
	}
	return nil
}

// Numeric keys are stored as "ordered" uint64s: a bijection that preserves
// order, so pages, the lookup and all searches compare plain uint64s.

func orderInt64(v int64) uint64 { return uint64(v) ^ (1 << 63) }

// orderFloat64 flips the sign bit of non-negative floats and every bit of
// negative ones. -0 is folded into +0 so that equality matches SQL.
func orderFloat64(f float64) uint64 {
	if f == 0 {
		f = 0
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// numericKeys converts a numeric key array to ordered uint64s. valid is nil
// when the array has no nulls; null slots hold 0.
func numericKeys(kind keyKind, arr arrow.Array) (keys []uint64, valid []bool, err error) {
	n := arr.Len()
	keys = make([]uint64, n)
	switch a := arr.(type) {
	case *array.Uint64:
		if kind != kindUint64 {
			return nil, nil, typeErr(kind, arr)
		}
		copy(keys, a.Uint64Values())
	case *array.Int64:
		if kind != kindInt64 {
			return nil, nil, typeErr(kind, arr)
		}
		for i, v := range a.Int64Values() {
			keys[i] = orderInt64(v)
		}
	case *array.Float64:
		if kind != kindFloat64 {
			return nil, nil, typeErr(kind, arr)
		}
		for i, v := range a.Float64Values() {
			keys[i] = orderFloat64(v)
		}
	case *array.Int32:
		if kind != kindInt32 {
			return nil, nil, typeErr(kind, arr)
		}
		for i, v := range a.Int32Values() {
			keys[i] = orderInt64(int64(v))
		}
	case *array.Int16:
		if kind != kindInt16 {
			return nil, nil, typeErr(kind, arr)
		}
		for i, v := range a.Int16Values() {
			keys[i] = orderInt64(int64(v))
		}
	case *array.Date32:
		if kind != kindDate32 {
			return nil, nil, typeErr(kind, arr)
		}
		for i, v := range a.Date32Values() {
			keys[i] = orderInt64(int64(v))
		}
	case *array.Timestamp:
		if kind != kindTimestamp {
			return nil, nil, typeErr(kind, arr)
		}
		for i, v := range a.TimestampValues() {
			keys[i] = orderInt64(int64(v))
		}
	case *array.Boolean:
		if kind != kindBool {
			return nil, nil, typeErr(kind, arr)
		}
		for i := range keys {
			if a.Value(i) {
				keys[i] = orderInt64(1)
			} else {
				keys[i] = orderInt64(0)
			}
		}
	case *array.Float32:
		if kind != kindFloat32 {
			return nil, nil, typeErr(kind, arr)
		}
		for i, v := range a.Float32Values() {
			keys[i] = orderFloat64(float64(v))
		}
	default:
		return nil, nil, typeErr(kind, arr)
	}
	if arr.NullN() > 0 {
		valid = make([]bool, n)
		for i := range valid {
			valid[i] = arr.IsValid(i)
			if !valid[i] {
				keys[i] = 0
			}
		}
	}
	return keys, valid, nil
}

// stringKeys converts a string key array. valid is nil when it has no
// nulls. parts are a composite key's columns (composite.go).
func stringKeys(kind keyKind, parts []part, arr arrow.Array) (keys []string, valid []bool, err error) {
	if kind == kindComposite {
		return compositeProbeKeys(parts, arr)
	}
	if d, ok := arr.(*array.Decimal128); ok && kind == kindDecimal {
		return decimalKeys(d)
	}
	a, ok := arr.(*array.String)
	if !ok || kind != kindString {
		return nil, nil, typeErr(kind, arr)
	}
	keys = make([]string, a.Len())
	hasNull := a.NullN() > 0
	if hasNull {
		valid = make([]bool, a.Len())
	}
	for i := range keys {
		if hasNull && !a.IsValid(i) {
			continue
		}
		if hasNull {
			valid[i] = true
		}
		keys[i] = a.Value(i)
	}
	return keys, valid, nil
}

// decimalKeys converts a numeric key array to its string keys.
func decimalKeys(a *array.Decimal128) (keys []string, valid []bool, err error) {
	keys = make([]string, a.Len())
	if a.NullN() > 0 {
		valid = make([]bool, a.Len())
	}
	for i := range keys {
		if valid != nil {
			if valid[i] = a.IsValid(i); !valid[i] {
				continue
			}
		}
		keys[i] = decimalKey(a.Value(i))
	}
	return keys, valid, nil
}

func typeErr(kind keyKind, arr arrow.Array) error {
	return fmt.Errorf("%w: index keys are %s, got %s", ErrKeyType, kind.dataType(), arr.DataType())
}

// scalarKey converts a Go search value to the index's key domain: for
// numeric indexes the ordered uint64, for string indexes the string.
func scalarKey(kind keyKind, v any) (uint64, string, error) {
	bad := func() (uint64, string, error) {
		return 0, "", fmt.Errorf("%w: %T value for %s keys", ErrKeyType, v, kind.dataType())
	}
	switch kind {
	case kindString:
		switch x := v.(type) {
		case string:
			return 0, x, nil
		case []byte:
			return 0, string(x), nil
		}
		return bad()
	case kindComposite:
		// An encoded key (composite.go), as EncodeKeys returns them.
		switch x := v.(type) {
		case string:
			return 0, x, nil
		case []byte:
			return 0, string(x), nil
		}
		return bad()
	case kindDecimal:
		if x, ok := v.(decimal128.Num); ok {
			return 0, decimalKey(x), nil
		}
		return bad()
	case kindFloat32:
		switch x := v.(type) {
		case float32:
			return orderFloat64(float64(x)), "", nil
		case float64:
			if float64(float32(x)) != x {
				return bad() // no real equals it; a range bound must be exact too
			}
			return orderFloat64(x), "", nil
		}
		return bad()
	case kindTimestamp:
		if ts, ok := v.(arrow.Timestamp); ok {
			return orderInt64(int64(ts)), "", nil
		}
		return bad()
	case kindBool:
		if b, ok := v.(bool); ok {
			if b {
				return orderInt64(1), "", nil
			}
			return orderInt64(0), "", nil
		}
		return bad()
	case kindInt32, kindInt16, kindDate32:
		if d, ok := v.(arrow.Date32); ok && kind == kindDate32 {
			return orderInt64(int64(d)), "", nil
		}
		if i, ok := asInt(v); ok {
			return orderInt64(i), "", nil
		}
		return bad()
	case kindFloat64:
		switch x := v.(type) {
		case float64:
			return orderFloat64(x), "", nil
		case float32:
			return orderFloat64(float64(x)), "", nil
		}
		if i, ok := asInt(v); ok {
			return orderFloat64(float64(i)), "", nil
		}
		if u, ok := v.(uint64); ok {
			return orderFloat64(float64(u)), "", nil
		}
		return bad()
	case kindInt64:
		if i, ok := asInt(v); ok {
			return orderInt64(i), "", nil
		}
		if u, ok := v.(uint64); ok && u <= math.MaxInt64 {
			return orderInt64(int64(u)), "", nil
		}
		return bad()
	case kindUint64:
		if u, ok := v.(uint64); ok {
			return u, "", nil
		}
		if u, ok := v.(uint32); ok {
			return uint64(u), "", nil
		}
		if i, ok := asInt(v); ok && i >= 0 {
			return uint64(i), "", nil
		}
		return bad()
	}
	return bad()
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint8:
		return int64(x), true
	}
	return 0, false
}
