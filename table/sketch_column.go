package table

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/value"
)

// addColumn adds a's non-null values to s, each hashed in the canonical
// form of its zone kind (kindOf), so that values the engine's equality
// calls equal hash alike: integers of every width and bool as int64,
// floats as float64 with -0 as 0 and every NaN as one NaN (float8_eq
// calls NaNs equal), decimals as their 16 unscaled bytes (a column has
// one scale), strings and binaries as their bytes, character(n) without
// its trailing blanks (bpchareq ignores them). NULLs are not values:
// PostgreSQL's stadistinct counts non-null values only.
//
// keep, when not nil, says which rows count (ANALYZE: the live ones).
func (s *Sketch) addColumn(a arrow.Array, trim bool, keep func(int) bool) {
	if a.NullN() == a.Len() {
		return
	}
	valid := func(i int) bool { return a.IsValid(i) && (keep == nil || keep(i)) }
	switch x := a.(type) {
	case *array.Boolean:
		for i := 0; i < x.Len(); i++ {
			if valid(i) {
				v := uint64(0)
				if x.Value(i) {
					v = 1
				}
				s.addUint64(v)
			}
		}
	case *array.Int8:
		addInts(s, x, x.Value, valid)
	case *array.Int16:
		addInts(s, x, x.Value, valid)
	case *array.Int32:
		addInts(s, x, x.Value, valid)
	case *array.Int64:
		addInts(s, x, x.Value, valid)
	case *array.Date32:
		addInts(s, x, x.Value, valid)
	case *array.Timestamp:
		addInts(s, x, x.Value, valid)
	case *array.Uint8:
		addInts(s, x, x.Value, valid)
	case *array.Uint16:
		addInts(s, x, x.Value, valid)
	case *array.Uint32:
		addInts(s, x, x.Value, valid)
	case *array.Uint64:
		addInts(s, x, x.Value, valid)
	case *array.Float32:
		for i := 0; i < x.Len(); i++ {
			if valid(i) {
				s.addUint64(floatKey(float64(x.Value(i))))
			}
		}
	case *array.Float64:
		for i := 0; i < x.Len(); i++ {
			if valid(i) {
				s.addUint64(floatKey(x.Value(i)))
			}
		}
	case *array.Decimal128:
		var b [16]byte
		for i := 0; i < x.Len(); i++ {
			if valid(i) {
				n := x.Value(i)
				binary.LittleEndian.PutUint64(b[:], n.LowBits())
				binary.LittleEndian.PutUint64(b[8:], uint64(n.HighBits()))
				s.addBytes(b[:])
			}
		}
	case *array.String:
		for i := 0; i < x.Len(); i++ {
			if valid(i) {
				v := x.Value(i)
				if trim {
					v = value.TrimBlanks(v)
				}
				s.addString(v)
			}
		}
	case *array.Binary:
		for i := 0; i < x.Len(); i++ {
			if valid(i) {
				s.addBytes(x.Value(i))
			}
		}
	}
}

// addInts adds an integer-like column's values as 8 bytes each (a
// uint64 above MaxInt64 keeps its bits, which no int64 of the same
// column can share).
func addInts[T int8 | int16 | int32 | int64 | arrow.Date32 | arrow.Timestamp | uint8 | uint16 | uint32 | uint64](s *Sketch, a arrow.Array, v func(int) T, valid func(int) bool) {
	for i := 0; i < a.Len(); i++ {
		if valid(i) {
			s.addUint64(uint64(int64(v(i))))
		}
	}
}

// floatKey is f's bits with -0 as 0 and every NaN as the canonical NaN.
func floatKey(f float64) uint64 {
	if f != f {
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(normFloat(f))
}
