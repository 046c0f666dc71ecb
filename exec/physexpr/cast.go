package physexpr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stablerow/stablerow/value"
)

// Cast converts E to To with PostgreSQL's semantics:
//   - integer to a narrower integer, and float to integer, raise "<type>
//     out of range" when the value does not fit; float to integer rounds
//     half to even first (PostgreSQL's dtoi8 uses rint(): 2.5 -> 2,
//     3.5 -> 4, -2.5 -> -2), and NaN is out of range;
//   - integer to float rounds to the nearest float (2^53+1 -> 2^53);
//   - float8 to float4 raises "value out of range" on overflow or underflow;
//   - numbers to text print as PostgreSQL prints them (floats through
//     FormatFloat: 1234567.0 -> "1234567"); booleans as "true"/"false";
//   - text to a number or boolean parses like PostgreSQL's input functions
//     and raises a typed error on bad input.
//
// Pairs PostgreSQL has no cast for (boolean to float, float to boolean)
// are refused at bind time; types outside these fall back to arrow's
// safe cast.
type Cast struct {
	E  Expr
	To arrow.DataType
}

func (e Cast) String() string                                   { return fmt.Sprintf("CAST(%s AS %s)", e.E, e.To) }
func (e Cast) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e Cast) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}
func (e Cast) Bind(s *arrow.Schema) (Bound, error) {
	if e.To == nil {
		return nil, fmt.Errorf("%w: cast without a target type", ErrInvalidArgument)
	}
	in, err := Bind(e.E, s)
	if err != nil {
		return nil, err
	}
	from, to := classOf(in.Type()), classOf(e.To)
	if arrow.TypeEqual(in.Type(), e.To) {
		return in, nil
	}
	if from != 0 && to != 0 && !castable(from, to) {
		return nil, fmt.Errorf("%w: cannot cast %s to %s", ErrSchema, in.Type(), e.To)
	}
	return boundCast{exprOf: exprOf[Cast]{e}, in: in, native: from != 0 && to != 0}, nil
}

// classOf sorts the types this file converts itself: signed integers,
// uint64, floats, text and boolean; 0 for the rest.
func classOf(t arrow.DataType) byte {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return 'i'
	case arrow.UINT64:
		return 'u'
	case arrow.FLOAT32, arrow.FLOAT64:
		return 'f'
	case arrow.STRING:
		return 's'
	case arrow.BOOL:
		return 'b'
	case arrow.DATE32:
		return 'd'
	case arrow.DECIMAL128:
		return 'n'
	case arrow.TIMESTAMP:
		if t.(*arrow.TimestampType).Unit == arrow.Microsecond {
			return 't'
		}
	}
	return 0
}

// castable reports the class pairs PostgreSQL has a cast for: not between
// boolean and float, and a date or timestamp converts only to and from
// text and each other.
func castable(from, to byte) bool {
	switch {
	case from == 'b' && to == 'f' || from == 'f' && to == 'b':
		return false
	case from == 'd' || from == 't':
		return to == 's' || to == 'd' || to == 't'
	case to == 'd' || to == 't':
		return from == 's'
	case from == 'n' || to == 'n':
		return from != 'b' && to != 'b' && from != 'u' && to != 'u'
	}
	return true
}

type boundCast struct {
	exprOf[Cast]
	in     Bound
	native bool
}

func (e boundCast) Type() arrow.DataType { return e.src.To }

// Eval names the value errors this node raises (evalNamed).
func (e boundCast) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	return evalNamed(ctx, mem, b, e, e.eval)
}

func (e boundCast) eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	d, err := e.in.Eval(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	n, asScalar := rowsFor(int(b.NumRows()), d)
	var a arrow.Array
	switch d := d.(type) {
	case *compute.ScalarDatum: // one row stands for all
		if a, err = scalar.MakeArrayFromScalar(d.Value, n, mem); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
	case *compute.ArrayDatum:
		a = d.MakeArray()
	default:
		return nil, fmt.Errorf("%w: datum %s", ErrSchema, d.Kind())
	}
	defer a.Release()
	var out arrow.Array
	if e.native {
		out, err = castArray(mem, a, e.src.To)
	} else {
		out, err = compute.CastArray(compute.WithAllocator(ctx, mem), a, compute.SafeCastOptions(e.src.To))
		if err != nil {
			err = fmt.Errorf("%w: cast %s to %s: %w", ErrInvalidArgument, a.DataType(), e.src.To, err)
		}
	}
	if err != nil {
		return nil, err
	}
	return result(out, asScalar)
}

// pgTypeName is the PostgreSQL name of t, for error messages.
func pgTypeName(t arrow.DataType) string {
	switch t.ID() {
	case arrow.INT8:
		return "tinyint"
	case arrow.INT16:
		return "smallint"
	case arrow.INT32:
		return "integer"
	case arrow.INT64:
		return "bigint"
	case arrow.FLOAT32:
		return "real"
	case arrow.FLOAT64:
		return "double precision"
	case arrow.STRING:
		return "text"
	case arrow.BOOL:
		return "boolean"
	case arrow.DATE32:
		return "date"
	case arrow.TIMESTAMP:
		return "timestamp without time zone"
	case arrow.DECIMAL128:
		d := t.(*arrow.Decimal128Type)
		return fmt.Sprintf("numeric(%d,%d)", d.Precision, d.Scale)
	}
	return t.String()
}

// cell is one source value read for a cast.
type cell struct {
	n decimal128.Num // a decimal at the source's scale
	i int64
	u uint64
	f float64
	s string
	b bool
}

// reader returns a function reading row i of a into a cell, by a's class.
func reader(a arrow.Array) (func(i int) cell, error) {
	switch a := a.(type) {
	case *array.Int8:
		return func(i int) cell { return cell{i: int64(a.Value(i))} }, nil
	case *array.Int16:
		return func(i int) cell { return cell{i: int64(a.Value(i))} }, nil
	case *array.Int32:
		return func(i int) cell { return cell{i: int64(a.Value(i))} }, nil
	case *array.Int64:
		return func(i int) cell { return cell{i: a.Value(i)} }, nil
	case *array.Uint64:
		return func(i int) cell { return cell{u: a.Value(i)} }, nil
	case *array.Float32:
		return func(i int) cell { return cell{f: float64(a.Value(i))} }, nil
	case *array.Float64:
		return func(i int) cell { return cell{f: a.Value(i)} }, nil
	case *array.String:
		return func(i int) cell { return cell{s: a.Value(i)} }, nil
	case *array.Boolean:
		return func(i int) cell { return cell{b: a.Value(i)} }, nil
	case *array.Date32:
		return func(i int) cell { return cell{i: int64(a.Value(i))} }, nil
	case *array.Decimal128:
		return func(i int) cell { return cell{n: a.Value(i)} }, nil
	case *array.Timestamp:
		return func(i int) cell { return cell{i: int64(a.Value(i))} }, nil
	}
	return nil, fmt.Errorf("%w: cast from %s", ErrSchema, a.DataType())
}

// castArray converts a to type to, row by row.
func castArray(mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	read, err := reader(a)
	if err != nil {
		return nil, err
	}
	from := classOf(a.DataType())
	var scale int32 // of a decimal source
	if d, ok := a.DataType().(*arrow.Decimal128Type); ok {
		scale = d.Scale
	}
	switch to.ID() {
	case arrow.INT8:
		return castFixed(mem, a, to, read, toInt[int8](from, scale, to, math.MinInt8, math.MaxInt8))
	case arrow.INT16:
		return castFixed(mem, a, to, read, toInt[int16](from, scale, to, math.MinInt16, math.MaxInt16))
	case arrow.INT32:
		return castFixed(mem, a, to, read, toInt[int32](from, scale, to, math.MinInt32, math.MaxInt32))
	case arrow.INT64:
		return castFixed(mem, a, to, read, toInt[int64](from, scale, to, math.MinInt64, math.MaxInt64))
	case arrow.UINT64:
		return castFixed(mem, a, to, read, toUint(from))
	case arrow.FLOAT64:
		return castFixed(mem, a, to, read, toFloat[float64](from, scale, 64))
	case arrow.FLOAT32:
		return castFixed(mem, a, to, read, toFloat[float32](from, scale, 32))
	case arrow.BOOL:
		return castBool(mem, a, read, from)
	case arrow.STRING:
		return castString(mem, a, read, from)
	case arrow.DECIMAL128:
		return castDecimal(mem, a, to.(*arrow.Decimal128Type), read, from)
	case arrow.DATE32:
		return castFixed(mem, a, to, read, toDate(from))
	case arrow.TIMESTAMP:
		return castFixed(mem, a, to, read, toTimestamp(from))
	}
	return nil, fmt.Errorf("%w: cast to %s", ErrSchema, to)
}

func castFixed[T fixed](mem memory.Allocator, a arrow.Array, to arrow.DataType, read func(int) cell, conv func(cell) (T, error)) (arrow.Array, error) {
	n := a.Len()
	out := newFixedOut[T](mem, to, n)
	for i := 0; i < n; i++ {
		if a.IsNull(i) {
			out.setNull(i)
			continue
		}
		v, err := conv(read(i))
		if err != nil {
			out.release()
			return nil, err
		}
		out.v[i] = v
	}
	return out.array(), nil
}

func toInt[T signed](from byte, scale int32, to arrow.DataType, lo, hi int64) func(cell) (T, error) {
	name := pgTypeName(to)
	outOfRange := fmt.Errorf("%w: %s out of range", ErrOutOfRange, name)
	return func(c cell) (T, error) {
		switch from {
		case 'i':
			if c.i < lo || c.i > hi {
				return 0, outOfRange
			}
			return T(c.i), nil
		case 'u':
			if c.u > uint64(hi) {
				return 0, outOfRange
			}
			return T(c.u), nil
		case 'f':
			// rint(), then a range check on the rounded value: -2^63 is
			// exact in float64, 2^63 is the first value past the top.
			r := math.RoundToEven(c.f)
			if math.IsNaN(r) || r < float64(lo) || r >= -float64(lo) {
				return 0, outOfRange
			}
			return T(r), nil
		case 'b':
			if c.b {
				return 1, nil
			}
			return 0, nil
		case 'n':
			v, err := value.DecimalToInt(c.n, scale, lo, hi, name)
			return T(v), err
		}
		v, err := strconv.ParseInt(strings.Trim(c.s, value.InputSpace), 10, 64)
		if err != nil || v < lo || v > hi {
			if errors.Is(err, strconv.ErrRange) || err == nil {
				return 0, fmt.Errorf("%w: value %q is out of range for type %s", ErrOutOfRange, c.s, name)
			}
			return 0, fmt.Errorf("%w: invalid input syntax for type %s: %q", ErrInvalidArgument, name, c.s)
		}
		return T(v), nil
	}
}

func toUint(from byte) func(cell) (uint64, error) {
	outOfRange := fmt.Errorf("%w: uint64 out of range", ErrOutOfRange)
	return func(c cell) (uint64, error) {
		switch from {
		case 'i':
			if c.i < 0 {
				return 0, outOfRange
			}
			return uint64(c.i), nil
		case 'u':
			return c.u, nil
		case 'f':
			r := math.RoundToEven(c.f)
			if math.IsNaN(r) || r < 0 || r >= 1<<64 {
				return 0, outOfRange
			}
			return uint64(r), nil
		case 'b':
			if c.b {
				return 1, nil
			}
			return 0, nil
		}
		v, err := strconv.ParseUint(strings.Trim(c.s, value.InputSpace), 10, 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return 0, fmt.Errorf("%w: value %q is out of range for type uint64", ErrOutOfRange, c.s)
			}
			return 0, fmt.Errorf("%w: invalid input syntax for type uint64: %q", ErrInvalidArgument, c.s)
		}
		return v, nil
	}
}

// toFloat converts to float64 (bits 64) or float32 (bits 32). Integers
// round to the nearest float, as Go's conversion does and PostgreSQL's
// i8tod does.
func toFloat[T float32 | float64](from byte, scale int32, bits int) func(cell) (T, error) {
	return func(c cell) (T, error) {
		switch from {
		case 'i':
			return T(c.i), nil
		case 'u':
			return T(c.u), nil
		case 'n':
			return T(value.DecimalToFloat(c.n, scale)), nil
		case 'f':
			r := T(c.f)
			if math.IsInf(float64(r), 0) && !math.IsInf(c.f, 0) {
				return 0, fmt.Errorf("%w: value out of range: overflow", ErrOutOfRange)
			}
			if r == 0 && c.f != 0 {
				return 0, fmt.Errorf("%w: value out of range: underflow", ErrOutOfRange)
			}
			return r, nil
		}
		f, err := value.ParseFloat(c.s, bits)
		return T(f), err
	}
}

// castDecimal converts to numeric(p, s): integers exactly, floats
// through their text, text through numeric_in, decimals rescaled; each
// rounded half away from zero and checked against p.
func castDecimal(mem memory.Allocator, a arrow.Array, to *arrow.Decimal128Type, read func(int) cell, from byte) (arrow.Array, error) {
	var scale int32
	if d, ok := a.DataType().(*arrow.Decimal128Type); ok {
		scale = d.Scale
	}
	if da, ok := a.(*array.Decimal128); ok && from == 'n' {
		if out, ok := widenDecimal(mem, da, scale, to); ok { // castwiden.go
			return out, nil
		}
	}
	bits := 64
	if a.DataType().ID() == arrow.FLOAT32 {
		bits = 32
	}
	b := array.NewDecimal128Builder(mem, to)
	defer b.Release()
	b.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		c := read(i)
		var v decimal128.Num
		var err error
		switch from {
		case 'i':
			v, err = value.DecimalFromInt(c.i, to.Precision, to.Scale)
		case 'f':
			v, err = value.DecimalFromFloat(c.f, bits, to.Precision, to.Scale)
		case 's':
			v, err = value.ParseDecimal(c.s, to.Precision, to.Scale)
		case 'n':
			v, err = value.RescaleDecimal(c.n, scale, to.Precision, to.Scale)
		default:
			err = fmt.Errorf("%w: cannot cast %s to numeric", ErrSchema, a.DataType())
		}
		if err != nil {
			return nil, err
		}
		b.Append(v)
	}
	return b.NewArray(), nil
}

// toDate: text through date_in, a timestamp to the day it falls in.
func toDate(from byte) func(cell) (arrow.Date32, error) {
	return func(c cell) (arrow.Date32, error) {
		switch from {
		case 'd':
			return arrow.Date32(c.i), nil
		case 't':
			return arrow.Date32(value.TimestampToDate(c.i)), nil
		case 's':
			d, err := value.ParseDate(c.s)
			return arrow.Date32(d), err
		}
		return 0, fmt.Errorf("%w: cannot cast to date", ErrSchema)
	}
}

// toTimestamp: text through timestamp_in, a date to its midnight.
func toTimestamp(from byte) func(cell) (arrow.Timestamp, error) {
	return func(c cell) (arrow.Timestamp, error) {
		switch from {
		case 't':
			return arrow.Timestamp(c.i), nil
		case 'd':
			us, err := value.DateToTimestamp(int32(c.i))
			return arrow.Timestamp(us), err
		case 's':
			us, err := value.ParseTimestamp(c.s)
			return arrow.Timestamp(us), err
		}
		return 0, fmt.Errorf("%w: cannot cast to timestamp", ErrSchema)
	}
}

func castBool(mem memory.Allocator, a arrow.Array, read func(int) cell, from byte) (arrow.Array, error) {
	n := a.Len()
	out := newBoolOut(mem, n)
	for i := 0; i < n; i++ {
		if a.IsNull(i) {
			out.setNull(i)
			continue
		}
		c := read(i)
		switch from {
		case 'i':
			out.set(i, c.i != 0)
		case 'u':
			out.set(i, c.u != 0)
		case 's':
			v, ok := value.ParseBool(c.s)
			if !ok {
				out.array().Release()
				return nil, fmt.Errorf("%w: invalid input syntax for type boolean: %q", ErrInvalidArgument, c.s)
			}
			out.set(i, v)
		default:
			out.array().Release()
			return nil, fmt.Errorf("%w: cannot cast %s to boolean", ErrSchema, a.DataType())
		}
	}
	return out.array(), nil
}

func castString(mem memory.Allocator, a arrow.Array, read func(int) cell, from byte) (arrow.Array, error) {
	bits := 64
	if a.DataType().ID() == arrow.FLOAT32 {
		bits = 32
	}
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			sb.AppendNull()
			continue
		}
		c := read(i)
		switch from {
		case 'i':
			sb.Append(strconv.FormatInt(c.i, 10))
		case 'u':
			sb.Append(strconv.FormatUint(c.u, 10))
		case 'f':
			sb.Append(value.FormatFloat(c.f, bits))
		case 'b':
			sb.Append(strconv.FormatBool(c.b))
		case 'n':
			sb.Append(value.FormatDecimal(c.n, a.DataType().(*arrow.Decimal128Type).Scale))
		case 'd':
			sb.Append(value.FormatDate(int32(c.i)))
		case 't':
			sb.Append(value.FormatTimestamp(c.i))
		default:
			sb.Append(c.s)
		}
	}
	return sb.NewArray(), nil
}
