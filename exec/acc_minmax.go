package exec

import (
	"cmp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/value"
)

// minMaxAcc is min(x) or max(x) over one ordered type T, in the order
// SortExec uses (floats: NaN above every number, as in PostgreSQL; false
// before true). NULLs are skipped; a group with no value gives NULL.
type minMaxAcc[T any] struct {
	max bool
	any bool // any_value: keep the first value

	typ  arrow.DataType
	vals []T
	set  []bool
	get  func(a arrow.Array, r int) T
	cmp  func(x, y T) int
	own  func(T) T // copies a value out of the batch's buffers (strings)
	put  func(b array.Builder, v T)
}

func (m *minMaxAcc[T]) update(args []arrow.Array, groups []uint32, ngroups int) error {
	m.vals, m.set = growTo(m.vals, ngroups), growTo(m.set, ngroups)
	a := args[0]
	for r, g := range groups {
		if g == skipRow || a.IsNull(r) {
			continue
		}
		v := m.get(a, r)
		if m.set[g] && m.any {
			continue
		}
		if m.set[g] {
			// PostgreSQL's float8larger/float8smaller keep the new value on
			// a tie: max(0, -0) is the later of the two.
			c := m.cmp(v, m.vals[g])
			if (m.max && c < 0) || (!m.max && c > 0) || (c == 0 && m.own != nil) {
				continue // equal strings are the same bytes: no copy
			}
		}
		if m.own != nil {
			v = m.own(v)
		}
		m.vals[g], m.set[g] = v, true
	}
	return nil
}

func (m *minMaxAcc[T]) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	m.vals, m.set = growTo(m.vals, n), growTo(m.set, n)
	b := array.NewBuilder(mem, m.typ)
	defer b.Release()
	for g := range n {
		if m.set[g] {
			m.put(b, m.vals[g])
		} else {
			b.AppendNull()
		}
	}
	m.vals, m.set = dropFront(m.vals, n), dropFront(m.set, n)
	return b.NewArray(), nil
}

func numMinMax[T cmp.Ordered, A interface {
	arrow.Array
	Value(int) T
}, B interface {
	array.Builder
	Append(T)
}](t arrow.DataType, max bool, compare func(x, y T) int) accumulator {
	return &minMaxAcc[T]{
		max: max, typ: t, cmp: compare,
		get: func(a arrow.Array, r int) T { return a.(A).Value(r) },
		put: func(b array.Builder, v T) { b.(B).Append(v) },
	}
}

func newMinMax(t arrow.DataType, max bool) accumulator {
	switch t.ID() {
	case arrow.INT8:
		return numMinMax[int8, *array.Int8, *array.Int8Builder](t, max, cmp.Compare[int8])
	case arrow.INT16:
		return numMinMax[int16, *array.Int16, *array.Int16Builder](t, max, cmp.Compare[int16])
	case arrow.INT32:
		return numMinMax[int32, *array.Int32, *array.Int32Builder](t, max, cmp.Compare[int32])
	case arrow.INT64:
		return numMinMax[int64, *array.Int64, *array.Int64Builder](t, max, cmp.Compare[int64])
	case arrow.UINT8:
		return numMinMax[uint8, *array.Uint8, *array.Uint8Builder](t, max, cmp.Compare[uint8])
	case arrow.UINT16:
		return numMinMax[uint16, *array.Uint16, *array.Uint16Builder](t, max, cmp.Compare[uint16])
	case arrow.UINT32:
		return numMinMax[uint32, *array.Uint32, *array.Uint32Builder](t, max, cmp.Compare[uint32])
	case arrow.UINT64:
		return numMinMax[uint64, *array.Uint64, *array.Uint64Builder](t, max, cmp.Compare[uint64])
	case arrow.FLOAT32:
		return numMinMax[float32, *array.Float32, *array.Float32Builder](t, max, value.CompareFloat[float32])
	case arrow.FLOAT64:
		return numMinMax[float64, *array.Float64, *array.Float64Builder](t, max, value.CompareFloat[float64])
	case arrow.DATE32:
		return numMinMax[arrow.Date32, *array.Date32, *array.Date32Builder](t, max, cmp.Compare[arrow.Date32])
	case arrow.TIMESTAMP:
		return numMinMax[arrow.Timestamp, *array.Timestamp, *array.TimestampBuilder](t, max, cmp.Compare[arrow.Timestamp])
	case arrow.DECIMAL128:
		// One column has one scale: the unscaled integers order as the numbers.
		return &minMaxAcc[decimal128.Num]{
			max: max, typ: t,
			cmp: func(x, y decimal128.Num) int { return x.Cmp(y) },
			get: func(a arrow.Array, r int) decimal128.Num { return a.(*array.Decimal128).Value(r) },
			put: func(b array.Builder, v decimal128.Num) { b.(*array.Decimal128Builder).Append(v) },
		}
	case arrow.STRING:
		m := numMinMax[string, *array.String, *array.StringBuilder](t, max, strings.Compare).(*minMaxAcc[string])
		m.own = strings.Clone
		return m
	case arrow.BOOL:
		return &minMaxAcc[bool]{
			max: max, typ: t,
			cmp: func(x, y bool) int {
				switch {
				case x == y:
					return 0
				case !x:
					return -1
				}
				return 1
			},
			get: func(a arrow.Array, r int) bool { return a.(*array.Boolean).Value(r) },
			put: func(b array.Builder, v bool) { b.(*array.BooleanBuilder).Append(v) },
		}
	}
	return nil // aggSignature admits only the types above
}

// keepFirst makes m any_value's accumulator: the first non-NULL value of
// each group.
func (m *minMaxAcc[T]) keepFirst() { m.any = true }
