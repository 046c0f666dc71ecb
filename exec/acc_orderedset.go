package exec

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/exec/physexpr"
)

// The ordered-set aggregates percentile_cont, percentile_disc and mode
// (PostgreSQL's orderedsetaggs.c) need all of a group's values: each
// group keeps its non-NULL values (NULLs are skipped, as PostgreSQL's
// ordered-set transition skips them) and sorts them when the group is
// emitted. The values held are counted (heldBytes): the hash aggregate
// reserves them, and over the memory limit the query fails with
// memlimit.ErrResourceExhausted rather than grow without bound; these
// aggregates are not spilled, and not mergeable (planned serially).
//
// percentile_cont(f): PostgreSQL's percentile_cont_final over the sorted
// values v[0..n-1]: the value at position f * (n - 1), interpolated
// linearly between its neighbours (double precision only here: the SQL
// front end casts other numbers to it, as PostgreSQL's implicit cast to
// float8 does). percentile_disc(f): the first value whose position (1-based)
// is at least f * n (the first value for f = 0). mode(): the most frequent
// value, the first in the WITHIN GROUP order among equally frequent ones
// (mode_final replaces its answer only on a strictly longer run). A NULL
// fraction gives NULL; one outside [0, 1] (or NaN) is an error, raised
// only for a group that is emitted, as percentile_*_final raises it.

// orderedSetSignature types an ordered-set aggregate over argument types
// (fraction then value for the percentiles, the value for mode).
func orderedSetSignature(a Aggregate, args []arrow.DataType) (arrow.DataType, func() accumulator, error) {
	v := args[len(args)-1]
	if a.Func != AggMode && args[0].ID() != arrow.FLOAT64 {
		return nil, nil, fmt.Errorf("%w: %s with a %s fraction (double precision expected)", physexpr.ErrInvalidArgument, a.Func, args[0])
	}
	if a.Func == AggPercentileCont && v.ID() != arrow.FLOAT64 {
		return nil, nil, fmt.Errorf("%w: percentile_cont over %s (double precision expected)", physexpr.ErrInvalidArgument, v)
	}
	switch v.ID() {
	case arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.DATE32, arrow.TIMESTAMP, arrow.DECIMAL128, arrow.BOOL:
	default:
		return nil, nil, fmt.Errorf("%w: %s over %s", physexpr.ErrInvalidArgument, a.Func, v)
	}
	f, desc := a.Func, a.Desc
	return v, func() accumulator { return &orderedSetAcc{f: f, desc: desc, typ: v} }, nil
}

type orderedSetAcc struct {
	f    AggregateFunc
	desc bool
	typ  arrow.DataType
	vals [][]any
	frac []float64
	// fracState: 0 no row yet, 1 a fraction, 2 a NULL fraction.
	fracState []uint8
	held      int64
}

// heldBytes is the values' estimated size, for the aggregate's
// reservation.
func (o *orderedSetAcc) heldBytes() int64 { return o.held }

func (o *orderedSetAcc) update(args []arrow.Array, groups []uint32, ngroups int) error {
	o.vals, o.frac, o.fracState = growTo(o.vals, ngroups), growTo(o.frac, ngroups), growTo(o.fracState, ngroups)
	x := args[len(args)-1]
	var fr *array.Float64
	if o.f != AggMode {
		fr = args[0].(*array.Float64)
	}
	for r, g := range groups {
		if g == skipRow {
			continue
		}
		if fr != nil && o.fracState[g] == 0 {
			// The fraction is evaluated once per group in PostgreSQL; a
			// constant here, read from the group's first row.
			if fr.IsNull(r) {
				o.fracState[g] = 2
			} else {
				o.frac[g], o.fracState[g] = fr.Value(r), 1
			}
		}
		if x.IsNull(r) {
			continue
		}
		v := heldValue(x, r)
		o.held += 24
		if s, ok := v.(string); ok {
			o.held += int64(len(s))
		}
		o.vals[g] = append(o.vals[g], v)
	}
	return nil
}

func (o *orderedSetAcc) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	o.vals, o.frac, o.fracState = growTo(o.vals, n), growTo(o.frac, n), growTo(o.fracState, n)
	b := array.NewBuilder(mem, o.typ)
	defer b.Release()
	for g := range n {
		v, ok, err := o.result(g)
		if err != nil {
			return nil, err
		}
		if !ok {
			b.AppendNull()
			continue
		}
		appendHeld(b, v)
	}
	for g := range n {
		for _, v := range o.vals[g] {
			o.held -= 24
			if s, ok := v.(string); ok {
				o.held -= int64(len(s))
			}
		}
	}
	o.vals, o.frac, o.fracState = dropFront(o.vals, n), dropFront(o.frac, n), dropFront(o.fracState, n)
	return b.NewArray(), nil
}

// result is group g's value; ok is false for NULL.
func (o *orderedSetAcc) result(g int) (any, bool, error) {
	vs := o.vals[g]
	if o.f != AggMode {
		if o.fracState[g] != 1 {
			return nil, false, nil // a NULL fraction, or no row at all
		}
		if f := o.frac[g]; f < 0 || f > 1 || math.IsNaN(f) {
			return nil, false, fmt.Errorf("%w: percentile value %s is not between 0 and 1", physexpr.ErrOutOfRange, formatG(f))
		}
	}
	if len(vs) == 0 {
		return nil, false, nil
	}
	slices.SortStableFunc(vs, func(a, b any) int {
		if o.desc {
			return compareHeld(b, a)
		}
		return compareHeld(a, b)
	})
	switch o.f {
	case AggPercentileCont:
		pos := o.frac[g] * float64(len(vs)-1)
		lo, hi := math.Floor(pos), math.Ceil(pos)
		first, second := vs[int(lo)].(float64), vs[int(hi)].(float64)
		if lo == hi {
			return first, true, nil
		}
		return first + (pos-lo)*(second-first), true, nil
	case AggPercentileDisc:
		row := int64(math.Ceil(o.frac[g] * float64(len(vs))))
		if row < 1 {
			row = 1
		}
		return vs[row-1], true, nil
	default: // mode
		best, bestN := vs[0], 0
		for i := 0; i < len(vs); {
			j := i + 1
			for j < len(vs) && compareHeld(vs[i], vs[j]) == 0 {
				j++
			}
			if j-i > bestN {
				best, bestN = vs[i], j-i
			}
			i = j
		}
		return best, true, nil
	}
}

func formatG(f float64) string { return strings.TrimSpace(fmt.Sprintf("%g", f)) }

// heldValue reads row r of x as a Go value compareValues orders.
func heldValue(x arrow.Array, r int) any {
	switch a := x.(type) {
	case *array.Int16:
		return int64(a.Value(r))
	case *array.Int32:
		return int64(a.Value(r))
	case *array.Int64:
		return a.Value(r)
	case *array.Float32:
		return float64(a.Value(r))
	case *array.Float64:
		return a.Value(r)
	case *array.String:
		return strings.Clone(a.Value(r))
	case *array.Date32:
		return int64(a.Value(r))
	case *array.Timestamp:
		return int64(a.Value(r))
	case *array.Decimal128:
		return a.Value(r)
	case *array.Boolean:
		return a.Value(r)
	}
	panic(fmt.Sprintf("exec: ordered-set aggregate over %s", x.DataType())) // orderedSetSignature refuses it
}

// compareHeld orders two values of one column as PostgreSQL does: NaN
// above every other float, text bytewise (C collation), false before true.
func compareHeld(a, b any) int {
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case float64:
		y := b.(float64)
		xn, yn := math.IsNaN(x), math.IsNaN(y)
		switch {
		case xn && yn:
			return 0
		case xn:
			return 1
		case yn:
			return -1
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case string:
		return strings.Compare(x, b.(string))
	case decimal128.Num:
		return x.Cmp(b.(decimal128.Num))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	return 0
}

func appendHeld(b array.Builder, v any) {
	switch bb := b.(type) {
	case *array.Int16Builder:
		bb.Append(int16(v.(int64)))
	case *array.Int32Builder:
		bb.Append(int32(v.(int64)))
	case *array.Int64Builder:
		bb.Append(v.(int64))
	case *array.Float32Builder:
		bb.Append(float32(v.(float64)))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.(int64)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(v.(int64)))
	case *array.Decimal128Builder:
		bb.Append(v.(decimal128.Num))
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	}
}
