package exec

import (
	"fmt"
	"math"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// AggregateFunc names an aggregate function.
type AggregateFunc int

const (
	AggCountStar      AggregateFunc = iota // count(*): every input row
	AggCount                               // count(x): rows where x is not NULL
	AggSum                                 // sum(x)
	AggAvg                                 // avg(x)
	AggMin                                 // min(x)
	AggMax                                 // max(x)
	AggBoolAnd                             // bool_and(x)
	AggBoolOr                              // bool_or(x)
	AggStringAgg                           // string_agg(x, delimiter)
	AggAnyValue                            // any_value(x): Substrait's; the first non-NULL x here
	AggPercentileCont                      // percentile_cont(fraction) WITHIN GROUP (ORDER BY x): acc_orderedset.go
	AggPercentileDisc                      // percentile_disc(fraction) WITHIN GROUP (ORDER BY x)
	AggMode                                // mode() WITHIN GROUP (ORDER BY x)
	AggStdDevSamp                          // stddev_samp(x) (stddev): acc_stddev.go
	AggStdDevPop                           // stddev_pop(x)
	AggVarSamp                             // var_samp(x) (variance)
	AggVarPop                              // var_pop(x)
	AggBitAnd                              // bit_and(x): acc_bit.go
	AggBitOr                               // bit_or(x)
)

var aggNames = [...]string{"count", "count", "sum", "avg", "min", "max", "bool_and", "bool_or", "string_agg", "any_value",
	"percentile_cont", "percentile_disc", "mode", "stddev_samp", "stddev_pop", "var_samp", "var_pop",
	"bit_and", "bit_or"}

func (f AggregateFunc) String() string {
	if f < 0 || int(f) >= len(aggNames) {
		return fmt.Sprintf("aggregate(%d)", int(f))
	}
	return aggNames[f]
}

// Aggregate is one measure of an aggregation: a function over input
// columns (Args; none for count(*), two for string_agg), over DISTINCT
// argument values when Distinct is set.
type Aggregate struct {
	Func     AggregateFunc
	Args     []int
	Distinct bool
	Name     string // output column name
	// Desc: an ordered-set aggregate's WITHIN GROUP order is descending.
	Desc bool
}

func (a Aggregate) describe(in *arrow.Schema) string {
	if a.Func == AggCountStar {
		return "count(*) as " + a.Name
	}
	s := a.Func.String() + "("
	if a.Distinct {
		s += "DISTINCT "
	}
	for i, c := range a.Args {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s@%d", in.Field(c).Name, c)
	}
	return s + ") as " + a.Name
}

// skipRow in a group list passed to accumulator.update: the row does not
// count (a DISTINCT argument seen before in its group).
const skipRow = math.MaxUint32

// accumulator is the per-group state of one measure. Groups are dense ids;
// update sees rows whose group is below ngroups (new groups start empty)
// and emit turns the first n groups into one output column, dropping their
// state so the remaining groups are renumbered from 0 (the ordered
// aggregation emits every group but its open last one after each batch).
type accumulator interface {
	update(args []arrow.Array, groups []uint32, ngroups int) error
	emit(mem memory.Allocator, n int) (arrow.Array, error)
}

// aggSignature resolves a measure against its argument types: the output
// type and a constructor of fresh state (one per stream). PostgreSQL's
// result types: count is bigint; sum of an integer is bigint (PostgreSQL's
// sum(bigint) is numeric: stablerow sums exactly in 128 bits and raises
// "bigint out of range" when the total does not fit, instead of a wrapped
// or rounded value); avg of an integer is double precision (PostgreSQL's
// numeric quotient read as a double: value.AvgQuotient128); sum of a float keeps its
// type, avg of a float is double precision; sum of a numeric is
// numeric(38, s), avg of a numeric is numeric(38, DecimalAvgScale(s))
// (physexpr/numdiv.go); min and max keep their type; the variances and
// standard deviations are acc_stddev.go's.
func aggSignature(a Aggregate, args []arrow.DataType) (arrow.DataType, func() accumulator, error) {
	want := 1
	switch a.Func {
	case AggCountStar:
		want = 0
	case AggStringAgg, AggPercentileCont, AggPercentileDisc:
		want = 2
	}
	if len(args) != want {
		return nil, nil, fmt.Errorf("%w: %s takes %d arguments, got %d", physexpr.ErrInvalidArgument, a.Func, want, len(args))
	}
	bad := func() error {
		return fmt.Errorf("%w: %s(%s) is not supported", physexpr.ErrInvalidArgument, a.Func, args[0])
	}
	var out arrow.DataType
	var mk func() accumulator
	switch a.Func {
	case AggCountStar, AggCount:
		out, mk = arrow.PrimitiveTypes.Int64, func() accumulator { return &countAcc{star: a.Func == AggCountStar} }
	case AggSum, AggAvg:
		avg := a.Func == AggAvg
		switch {
		case isIntegerType(args[0]):
			out = arrow.PrimitiveTypes.Int64
			if avg {
				out = arrow.PrimitiveTypes.Float64
			}
			mk = func() accumulator { return &intSumAcc{avg: avg} }
		case args[0].ID() == arrow.FLOAT64 || args[0].ID() == arrow.FLOAT32:
			out = arrow.PrimitiveTypes.Float64
			if !avg && args[0].ID() == arrow.FLOAT32 {
				out = arrow.PrimitiveTypes.Float32
			}
			f32 := args[0].ID() == arrow.FLOAT32
			mk = func() accumulator { return &floatSumAcc{avg: avg, f32: f32} }
		case args[0].ID() == arrow.DECIMAL128:
			// PostgreSQL's avg(numeric) is sum / count through numeric
			// division's per-value scale rule (physexpr/numdiv.go).
			in := args[0]
			out, mk = newDecimalSumAcc(avg, in).typ, func() accumulator { return newDecimalSumAcc(avg, in) }
		default:
			return nil, nil, bad()
		}
	case AggMin, AggMax, AggAnyValue:
		if !groupKeyOK(args[0]) {
			return nil, nil, bad()
		}
		out = args[0]
		f := a.Func
		mk = func() accumulator {
			m := newMinMax(args[0], f == AggMax)
			if f == AggAnyValue {
				// Any value will do; the first one costs no comparison.
				m.(interface{ keepFirst() }).keepFirst()
			}
			return m
		}
	case AggBoolAnd, AggBoolOr:
		if args[0].ID() != arrow.BOOL {
			return nil, nil, bad()
		}
		out, mk = arrow.FixedWidthTypes.Boolean, func() accumulator { return &boolAcc{or: a.Func == AggBoolOr} }
	case AggStringAgg:
		if args[0].ID() != arrow.STRING || args[1].ID() != arrow.STRING {
			return nil, nil, fmt.Errorf("%w: string_agg(%s, %s) is not supported", physexpr.ErrInvalidArgument, args[0], args[1])
		}
		out, mk = arrow.BinaryTypes.String, func() accumulator { return &stringAggAcc{} }
	case AggStdDevSamp, AggStdDevPop, AggVarSamp, AggVarPop:
		var err error
		if out, mk, err = statsSignature(a, args[0]); err != nil {
			return nil, nil, err
		}
	case AggBitAnd, AggBitOr:
		var err error
		if out, mk, err = bitSignature(a, args[0]); err != nil {
			return nil, nil, err
		}
	case AggPercentileCont, AggPercentileDisc, AggMode:
		var err error
		if out, mk, err = orderedSetSignature(a, args); err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, fmt.Errorf("%w: aggregate function %d", physexpr.ErrInvalidArgument, a.Func)
	}
	if a.Distinct && a.Func != AggCountStar {
		if !groupKeyOK(args[0]) {
			return nil, nil, bad()
		}
		inner := mk
		mk = func() accumulator { return &distinctAcc{inner: inner()} }
	}
	return out, mk, nil
}

func isIntegerType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	}
	return false
}

// dropFront removes the first n elements of s, keeping the rest in order.
func dropFront[T any](s []T, n int) []T {
	k := copy(s, s[n:])
	clear(s[k:])
	return s[:k]
}

// growTo extends s with zero values to n elements. The capacity at least
// doubles when it grows: a group table adds groups a batch at a time, and
// append's growth of large slices (1.25×) copied the accumulators' state
// ~5 times over for 1M groups.
func growTo[T any](s []T, n int) []T {
	if len(s) >= n {
		return s
	}
	if n <= cap(s) {
		old := len(s)
		s = s[:n]
		clear(s[old:])
		return s
	}
	ns := make([]T, n, max(n, 2*cap(s)))
	copy(ns, s)
	return ns
}

// AggregateType is the result type of a GROUP BY aggregate over args
// (aggSignature's rules), or a typed error: the window operator
// (exec/window) gives its framed aggregates the same types.
func AggregateType(f AggregateFunc, args []arrow.DataType) (arrow.DataType, error) {
	t, _, err := aggSignature(Aggregate{Func: f}, args)
	return t, err
}
