package physexpr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// The kernels in this package read their inputs as operands: a column of
// the batch, or one value (a literal, a parameter, or an expression over
// only those) that stands for every row without being copied n times.

// fixed is the set of fixed-width Go types the hand-written kernels run on.
type fixed interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// operand is a kernel's view of one input datum of type T.
type operand[T fixed] struct {
	vals   []T    // the column's values from its offset, or the one scalar value
	bitmap []byte // validity bitmap, nil when nothing is NULL
	off    int    // bit offset into bitmap
	stride int    // 1 for a column, 0 for a scalar
	null   bool   // the scalar is NULL
}

func (o *operand[T]) valid(i int) bool {
	if o.stride == 0 {
		return !o.null
	}
	return o.bitmap == nil || bitutil.BitIsSet(o.bitmap, o.off+i)
}

func (o *operand[T]) at(i int) T { return o.vals[i*o.stride] }

// operandOf views d (an array or scalar datum of T's Arrow type).
func operandOf[T fixed](d compute.Datum) (operand[T], error) {
	switch d := d.(type) {
	case *compute.ArrayDatum:
		a := d.Value
		o := operand[T]{vals: arrow.GetValues[T](a, 1), stride: 1, off: a.Offset()}
		if a.NullN() != 0 && a.Buffers()[0] != nil { // -1: unknown, as in slices
			o.bitmap = a.Buffers()[0].Bytes()
		}
		if o.vals == nil { // an empty array may have no value buffer
			o.vals = make([]T, a.Len())
		}
		return o, nil
	case *compute.ScalarDatum:
		o := operand[T]{vals: make([]T, 1)}
		if !d.Value.IsValid() {
			o.null = true
			return o, nil
		}
		ps, ok := d.Value.(scalar.PrimitiveScalar)
		if !ok {
			return o, fmt.Errorf("%w: scalar %s is not fixed-width", ErrSchema, d.Value.DataType())
		}
		o.vals = arrow.GetData[T](ps.Data())[:1]
		return o, nil
	}
	return operand[T]{}, fmt.Errorf("%w: datum %s", ErrSchema, d.Kind())
}

// fixedOut is a kernel's output column of n values of T, built in place.
type fixedOut[T fixed] struct {
	typ   arrow.DataType
	n     int
	vals  *memory.Buffer
	valid *memory.Buffer
	v     []T
	bits  []byte
	nulls int
}

func newFixedOut[T fixed](mem memory.Allocator, typ arrow.DataType, n int) *fixedOut[T] {
	o := &fixedOut[T]{typ: typ, n: n}
	o.vals = memory.NewResizableBuffer(mem)
	o.vals.Resize(n * typ.(arrow.FixedWidthDataType).Bytes())
	o.v = arrow.GetData[T](o.vals.Bytes())[:n]
	o.valid = memory.NewResizableBuffer(mem)
	o.valid.Resize(int(bitutil.BytesForBits(int64(n))))
	o.bits = o.valid.Bytes()
	for i := range o.bits {
		o.bits[i] = 0xFF
	}
	return o
}

func (o *fixedOut[T]) setNull(i int) {
	bitutil.ClearBit(o.bits, i)
	o.v[i] = 0
	o.nulls++
}

// release frees the buffers of an output abandoned on error.
func (o *fixedOut[T]) release() {
	o.vals.Release()
	o.valid.Release()
}

// array hands the buffers over to a new array.
func (o *fixedOut[T]) array() arrow.Array {
	valid := o.valid
	if o.nulls == 0 {
		valid.Release()
		valid = nil
	}
	d := array.NewData(o.typ, o.n, []*memory.Buffer{valid, o.vals}, nil, o.nulls, 0)
	if valid != nil {
		valid.Release()
	}
	o.vals.Release()
	a := array.MakeFromData(d)
	d.Release()
	return a
}

// isScalar reports whether d stands for every row.
func isScalar(d compute.Datum) bool { return d.Kind() == compute.KindScalar }

// rowsFor is how many rows a kernel computes for inputs over n rows: one
// when every input is a scalar (the result is then a scalar too), n
// otherwise.
func rowsFor(n int, ds ...compute.Datum) (int, bool) {
	for _, d := range ds {
		if !isScalar(d) {
			return n, false
		}
	}
	return min(n, 1), true
}

// result wraps a kernel's output column as a datum: the one value as a
// scalar when every input was a scalar, else the column.
func result(a arrow.Array, asScalar bool) (compute.Datum, error) {
	defer a.Release()
	if asScalar && a.Len() == 1 {
		s, err := scalarAt(a, 0)
		if err != nil {
			return nil, err
		}
		return compute.NewDatum(s), nil
	}
	return compute.NewDatum(a), nil
}

// scalarAt copies row i of a into a scalar that owns its memory (arrow's
// GetScalar shares string buffers with the array).
func scalarAt(a arrow.Array, i int) (scalar.Scalar, error) {
	if a.IsNull(i) {
		return scalar.MakeNullScalar(a.DataType()), nil
	}
	if s, ok := a.(*array.String); ok {
		return scalar.NewStringScalar(s.Value(i)), nil
	}
	s, err := scalar.GetScalar(a, i)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	return s, nil
}
