package btree

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// keyKind is the on-disk code of a KeyType.
type keyKind uint8

const (
	kindInt64   keyKind = 1
	kindUint64  keyKind = 2
	kindFloat64 keyKind = 3
	kindString  keyKind = 4
)

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

// stringKeys converts a string key array. valid is nil when it has no nulls.
func stringKeys(kind keyKind, arr arrow.Array) (keys []string, valid []bool, err error) {
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
