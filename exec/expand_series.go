package exec

import (
	"fmt"
	"math"
	"math/big"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The generate_series variants ExpandExec calls per input row, one per
// argument type PostgreSQL has (its generate_series_int4/int8,
// generate_series_numeric and generate_series_timestamp):
//
//	integer, bigint  start, stop, step columns of one integer type
//	numeric          start, stop, step decimal128 columns of one type
//	                 (the planner casts to the arguments' largest scale)
//	timestamp        start, stop timestamp columns; the step a constant
//	                 Interval (interval is not a column type here)
//
// Each is strict (a NULL argument: no values), refuses a zero step with
// PostgreSQL's message, and hands out its values a batch at a time, so a
// series is never materialized.

// Interval is a timestamp series' step: PostgreSQL's interval fields,
// applied in its order (months, clamping the day to the month's last;
// then days; then microseconds).
type Interval struct {
	Months, Days, Micros int64
}

// SeriesArgs names an expand's argument columns of its input; Interval
// is set (and Step ignored) for a timestamp series.
type SeriesArgs struct {
	Start, Stop, Step int
	Interval          *Interval
}

// seriesGen is one argument type's series, set up per input row.
type seriesGen interface {
	// call sets up row's series of b; empty when it has no values.
	call(b arrow.RecordBatch, row int) (empty bool, err error)
	// next appends up to n of the series' next values to buf and reports
	// how many, and whether the series is done.
	next(buf *seriesBuf, n int) (k int, done bool, err error)
}

// seriesBuf holds the series values of the output rows held: ints for
// integer and timestamp (microseconds) series, decs for numeric ones.
type seriesBuf struct {
	ints []int64
	decs []decimal128.Num
}

// pad holds a NULL-extended row's (ignored) value.
func (b *seriesBuf) pad(t arrow.DataType) {
	if t.ID() == arrow.DECIMAL128 {
		b.decs = append(b.decs, decimal128.Num{})
	} else {
		b.ints = append(b.ints, 0)
	}
}

// keep keeps the values at sel (ascending).
func (b *seriesBuf) keep(sel []int32) {
	for j, i := range sel {
		if b.decs != nil {
			b.decs[j] = b.decs[i]
		} else {
			b.ints[j] = b.ints[i]
		}
	}
	if b.decs != nil {
		b.decs = b.decs[:len(sel)]
	} else {
		b.ints = b.ints[:len(sel)]
	}
}

func (b *seriesBuf) reset() { b.ints, b.decs = b.ints[:0], b.decs[:0] }

// column builds the values held as a column of type t, NULL where null[i].
func (b *seriesBuf) column(mem memory.Allocator, t arrow.DataType, null []bool) arrow.Array {
	if t.ID() != arrow.DECIMAL128 {
		return intColumn(mem, t, b.ints, null)
	}
	bl := array.NewDecimal128Builder(mem, t.(*arrow.Decimal128Type))
	defer bl.Release()
	bl.Reserve(len(b.decs))
	for i, v := range b.decs {
		if null[i] {
			bl.UnsafeAppendBoolToBitmap(false)
		} else {
			bl.UnsafeAppend(v)
		}
	}
	return bl.NewArray()
}

// newSeriesGen checks the argument columns of in and returns the series
// of their type and its column type.
func newSeriesGen(in *arrow.Schema, a SeriesArgs) (seriesGen, arrow.DataType, error) {
	cols := []int{a.Start, a.Stop, a.Step}
	if a.Interval != nil {
		cols = cols[:2]
	}
	var typ arrow.DataType
	for i, c := range cols {
		if c < 0 || c >= in.NumFields() {
			return nil, nil, fmt.Errorf("%w: expand argument column %d of %d", physexpr.ErrInvalidArgument, c, in.NumFields())
		}
		t := in.Field(c).Type
		if i == 1 && t.ID() == arrow.DECIMAL128 && typ.ID() == arrow.DECIMAL128 {
			continue // a numeric stop keeps its own scale
		}
		if typ != nil && !arrow.TypeEqual(typ, t) {
			return nil, nil, fmt.Errorf("%w: generate_series arguments of types %s and %s", physexpr.ErrInvalidArgument, typ, t)
		}
		typ = t
	}
	switch id := typ.ID(); {
	case a.Interval != nil && id == arrow.TIMESTAMP:
		ts := typ.(*arrow.TimestampType)
		if ts.Unit != arrow.Microsecond || ts.TimeZone != "" {
			return nil, nil, fmt.Errorf("%w: generate_series over %s", physexpr.ErrUnsupported, typ)
		}
		iv := *a.Interval
		if intervalSign(iv) == 0 {
			// PostgreSQL checks the step once, before any row.
			return nil, nil, fmt.Errorf("%w: step size cannot equal zero", physexpr.ErrInvalidArgument)
		}
		return &timeSeries{start: a.Start, stop: a.Stop, step: iv, sign: intervalSign(iv)}, typ, nil
	case a.Interval != nil:
		return nil, nil, fmt.Errorf("%w: generate_series(%s, %s, interval)", physexpr.ErrUnsupported, typ, typ)
	case id == arrow.INT64 || id == arrow.INT32:
		return &intSeries{cols: [3]int{a.Start, a.Stop, a.Step}}, typ, nil
	case id == arrow.DECIMAL128:
		return &decSeries{cols: [3]int{a.Start, a.Stop, a.Step}}, typ, nil
	}
	return nil, nil, fmt.Errorf("%w: generate_series over %s", physexpr.ErrUnsupported, typ)
}

var errZeroStep = fmt.Errorf("%w: step size cannot equal zero", physexpr.ErrInvalidArgument)

// intSeries is generate_series(int4|int8, ...): value first+off*step for
// off < count, in wrapping arithmetic that is exact because every value
// lies between start and stop (seriesCount).
type intSeries struct {
	cols        [3]int
	first, step int64
	off, count  uint64
}

func (s *intSeries) call(b arrow.RecordBatch, row int) (bool, error) {
	var args [3]int64
	for i, c := range s.cols {
		col := b.Column(c)
		if col.IsNull(row) {
			return true, nil // generate_series is strict
		}
		switch a := col.(type) {
		case *array.Int64:
			args[i] = a.Value(row)
		case *array.Int32:
			args[i] = int64(a.Value(row))
		default:
			return false, fmt.Errorf("%w: generate_series argument of type %s", physexpr.ErrUnsupported, col.DataType())
		}
	}
	if args[2] == 0 {
		return false, errZeroStep
	}
	s.first, s.step, s.off = args[0], args[2], 0
	s.count = seriesCount(args[0], args[1], args[2])
	return s.count == 0, nil
}

func (s *intSeries) next(buf *seriesBuf, n int) (int, bool, error) {
	k := min(s.count-s.off, uint64(n))
	v := uint64(s.first) + s.off*uint64(s.step)
	for range k {
		buf.ints = append(buf.ints, int64(v))
		v += uint64(s.step)
	}
	s.off += k
	return int(k), s.off == s.count, nil
}

// decSeries is generate_series(numeric, numeric, numeric) over decimal128
// columns, start and step of one scale (the series'), stop of its own:
// value start+i*step while it has not passed stop.
// The count is computed exactly (big.Int), so no value past stop, which
// could overflow 128 bits, is ever formed. A count beyond 2^64 is capped
// there: no reader drains that many rows.
type decSeries struct {
	cols      [3]int
	cur, step decimal128.Num
	left      uint64 // values still to emit
}

func (s *decSeries) call(b arrow.RecordBatch, row int) (bool, error) {
	var args [3]decimal128.Num
	for i, c := range s.cols {
		col := b.Column(c)
		if col.IsNull(row) {
			return true, nil
		}
		a, ok := col.(*array.Decimal128)
		if !ok {
			return false, fmt.Errorf("%w: generate_series argument of type %s", physexpr.ErrUnsupported, col.DataType())
		}
		args[i] = a.Value(row)
	}
	if args[2].Sign() == 0 {
		return false, errZeroStep
	}
	s.cur, s.step = args[0], args[2]
	s.left = decCount(args[0], args[1], args[2], b.Column(s.cols[0]).DataType().(*arrow.Decimal128Type).Scale,
		b.Column(s.cols[1]).DataType().(*arrow.Decimal128Type).Scale)
	return s.left == 0, nil
}

// decCount is how many values start, start+step, ... (at scale s) lie on
// start's side of stop (at scale stopScale; step not zero), capped at
// MaxUint64.
func decCount(start, stop, step decimal128.Num, s, stopScale int32) uint64 {
	a, z, st := start.BigInt(), stop.BigInt(), step.BigInt()
	if s < stopScale {
		f := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(stopScale-s)), nil)
		a.Mul(a, f)
		st.Mul(st, f)
	} else if s > stopScale {
		z.Mul(z, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s-stopScale)), nil))
	}
	d := new(big.Int).Sub(z, a)
	if d.Sign() != 0 && d.Sign() != st.Sign() {
		return 0
	}
	q := new(big.Int).Quo(d, st) // both of one sign: q >= 0, truncated is floored
	q.Add(q, big.NewInt(1))
	if !q.IsUint64() {
		return math.MaxUint64
	}
	return q.Uint64()
}

func (s *decSeries) next(buf *seriesBuf, n int) (int, bool, error) {
	k := min(s.left, uint64(n))
	for i := range k {
		buf.decs = append(buf.decs, s.cur)
		if i+1 < s.left {
			s.cur = s.cur.Add(s.step) // the next value lies before stop: no overflow
		}
	}
	s.left -= k
	return int(k), s.left == 0, nil
}

// timeSeries is generate_series(timestamp, timestamp, interval): as
// PostgreSQL's generate_series_timestamp, each value is the previous one
// plus the step (so month steps clamp cumulatively: Jan 31, Feb 29,
// Mar 29), while it has not passed stop in the step's direction.
type timeSeries struct {
	start, stop int
	step        Interval
	sign        int // the step's direction
	cur, end    int64
}

func (s *timeSeries) call(b arrow.RecordBatch, row int) (bool, error) {
	a, ok1 := b.Column(s.start).(*array.Timestamp)
	z, ok2 := b.Column(s.stop).(*array.Timestamp)
	if !ok1 || !ok2 {
		return false, fmt.Errorf("%w: generate_series arguments of types %s, %s", physexpr.ErrUnsupported,
			b.Column(s.start).DataType(), b.Column(s.stop).DataType())
	}
	if a.IsNull(row) || z.IsNull(row) {
		return true, nil
	}
	s.cur, s.end = int64(a.Value(row)), int64(z.Value(row))
	return !s.within(), nil
}

// within: cur has not passed end in the step's direction.
func (s *timeSeries) within() bool {
	if s.sign > 0 {
		return s.cur <= s.end
	}
	return s.cur >= s.end
}

func (s *timeSeries) next(buf *seriesBuf, n int) (int, bool, error) {
	for k := range n {
		buf.ints = append(buf.ints, s.cur)
		nxt, err := AddInterval(s.cur, s.step)
		if err != nil {
			return k + 1, true, err
		}
		s.cur = nxt
		if !s.within() {
			return k + 1, true, nil
		}
	}
	return n, false, nil
}
