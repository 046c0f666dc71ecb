package exec

import (
	"fmt"
	"github.com/stablerow/stablerow/value"
	"math"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// intSumAcc is sum and avg of an integer column. Each group's total is kept
// exactly in 128 bits (hi:lo, two's complement), which no run of int64
// additions can overflow, so a total that returns into range after an
// intermediate overflow is still right, as PostgreSQL's numeric sum is.
// sum raises ErrOutOfRange ("bigint out of range") only when the final
// total does not fit in bigint; avg divides the exact total by the count
// and rounds once to double precision.
type intSumAcc struct {
	avg    bool
	hi     []int64
	lo     []uint64
	counts []int64
}

func (s *intSumAcc) grow(n int) {
	s.hi, s.lo, s.counts = growTo(s.hi, n), growTo(s.lo, n), growTo(s.counts, n)
}

// add adds a signed v to group g.
func (s *intSumAcc) add(g uint32, v int64) {
	lo := s.lo[g] + uint64(v)
	var carry int64
	if lo < s.lo[g] {
		carry = 1
	}
	s.hi[g] += carry + v>>63 // v>>63 is -1 for a negative v: its sign extension
	s.lo[g] = lo
	s.counts[g]++
}

func sumSigned[T int8 | int16 | int32 | int64](s *intSumAcc, a arrow.Array, vals []T, groups []uint32) {
	if a.NullN() == 0 {
		for r, g := range groups {
			if g != skipRow {
				s.add(g, int64(vals[r]))
			}
		}
		return
	}
	for r, g := range groups {
		if g != skipRow && a.IsValid(r) {
			s.add(g, int64(vals[r]))
		}
	}
}

func sumUnsigned[T uint8 | uint16 | uint32 | uint64](s *intSumAcc, a arrow.Array, vals []T, groups []uint32) {
	for r, g := range groups {
		if g == skipRow || a.IsNull(r) {
			continue
		}
		v := uint64(vals[r])
		lo := s.lo[g] + v
		if lo < s.lo[g] {
			s.hi[g]++
		}
		s.lo[g] = lo
		s.counts[g]++
	}
}

func (s *intSumAcc) update(args []arrow.Array, groups []uint32, ngroups int) error {
	s.grow(ngroups)
	switch a := args[0].(type) {
	case *array.Int64:
		sumSigned(s, a, a.Int64Values(), groups)
	case *array.Int32:
		sumSigned(s, a, a.Int32Values(), groups)
	case *array.Int16:
		sumSigned(s, a, a.Int16Values(), groups)
	case *array.Int8:
		sumSigned(s, a, a.Int8Values(), groups)
	case *array.Uint64:
		sumUnsigned(s, a, a.Uint64Values(), groups)
	case *array.Uint32:
		sumUnsigned(s, a, a.Uint32Values(), groups)
	case *array.Uint16:
		sumUnsigned(s, a, a.Uint16Values(), groups)
	case *array.Uint8:
		sumUnsigned(s, a, a.Uint8Values(), groups)
	default:
		return fmt.Errorf("%w: sum of %s", physexpr.ErrInvalidArgument, a.DataType())
	}
	return nil
}

func (s *intSumAcc) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	s.grow(n)
	defer func() {
		s.hi, s.lo, s.counts = dropFront(s.hi, n), dropFront(s.lo, n), dropFront(s.counts, n)
	}()
	if s.avg {
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for g := range n {
			if s.counts[g] == 0 {
				b.AppendNull()
				continue
			}
			b.Append(value.AvgQuotient128(s.hi[g], s.lo[g], s.counts[g]))
		}
		return b.NewArray(), nil
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Reserve(n)
	for g := range n {
		switch {
		case s.counts[g] == 0:
			b.AppendNull() // sum of no values is NULL
		case s.hi[g] != int64(s.lo[g])>>63:
			return nil, fmt.Errorf("%w: bigint out of range (sum)", physexpr.ErrOutOfRange)
		default:
			b.Append(int64(s.lo[g]))
		}
	}
	return b.NewArray(), nil
}

// floatSumAcc is sum and avg of a float column, as PostgreSQL computes
// them: sum adds in the column's own type (float4pl, float8pl) and avg
// follows float8_accum (the Youngs-Cramer running sums N, Sx, Sxx; avg is
// Sx/N). Both raise "value out of range: overflow" where PostgreSQL does:
// finite inputs that reach an infinite result (for avg, also through Sxx).
type floatSumAcc struct {
	avg, f32 bool
	n        []float64
	sx, sxx  []float64
	set      []bool
}

var errFloatOverflow = fmt.Errorf("%w: value out of range: overflow", physexpr.ErrOutOfRange)

func (s *floatSumAcc) grow(n int) {
	s.n, s.sx, s.sxx, s.set = growTo(s.n, n), growTo(s.sx, n), growTo(s.sxx, n), growTo(s.set, n)
}

func (s *floatSumAcc) update(args []arrow.Array, groups []uint32, ngroups int) error {
	s.grow(ngroups)
	var val func(r int) float64
	switch a := args[0].(type) {
	case *array.Float64:
		v := a.Float64Values()
		val = func(r int) float64 { return v[r] }
	case *array.Float32:
		v := a.Float32Values()
		val = func(r int) float64 { return float64(v[r]) }
	default:
		return fmt.Errorf("%w: sum of %s", physexpr.ErrInvalidArgument, a.DataType())
	}
	x := args[0]
	for r, g := range groups {
		if g == skipRow || x.IsNull(r) {
			continue
		}
		if err := s.add(int(g), val(r)); err != nil {
			return err
		}
	}
	return nil
}

// add adds v to group g, step for step as PostgreSQL: float4pl or float8pl
// for sum, float8_accum for avg. The window's framed sums (window_agg.go)
// call it too.
func (s *floatSumAcc) add(g int, v float64) error {
	if !s.avg {
		if !s.set[g] {
			// sum is float8pl (float4pl) with a NULL initial state and a
			// strict transition: the first value is the state as it is
			// (advance_transition_function), so sum(-0) is -0, not 0 + -0.
			if s.f32 {
				v = float64(float32(v))
			}
			s.sx[g], s.set[g] = v, true
			return nil
		}
		old := s.sx[g]
		sum := old + v
		if s.f32 {
			sum = float64(float32(old) + float32(v))
		}
		if math.IsInf(sum, 0) && !math.IsInf(old, 0) && !math.IsInf(v, 0) {
			return errFloatOverflow
		}
		s.sx[g], s.set[g] = sum, true
		return nil
	}
	// float8_accum, step for step.
	n0, sx0 := s.n[g], s.sx[g]
	n, sx, sxx := n0+1, sx0+v, s.sxx[g]
	if n0 > 0 {
		tmp := v*n - sx
		sxx += tmp * tmp / (n * n0)
		if math.IsInf(sx, 0) || math.IsInf(sxx, 0) {
			if !math.IsInf(sx0, 0) && !math.IsInf(v, 0) {
				return errFloatOverflow
			}
			sxx = math.NaN()
		}
	} else if math.IsNaN(v) || math.IsInf(v, 0) {
		sxx = math.NaN()
	}
	s.n[g], s.sx[g], s.sxx[g], s.set[g] = n, sx, sxx, true
	return nil
}

func (s *floatSumAcc) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	s.grow(n)
	defer func() {
		s.n, s.sx, s.sxx, s.set = dropFront(s.n, n), dropFront(s.sx, n), dropFront(s.sxx, n), dropFront(s.set, n)
	}()
	if s.f32 && !s.avg {
		b := array.NewFloat32Builder(mem)
		defer b.Release()
		for g := range n {
			if !s.set[g] {
				b.AppendNull()
			} else {
				b.Append(float32(s.sx[g]))
			}
		}
		return b.NewArray(), nil
	}
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	for g := range n {
		switch {
		case !s.set[g]:
			b.AppendNull()
		case s.avg:
			b.Append(s.sx[g] / s.n[g])
		default:
			b.Append(s.sx[g])
		}
	}
	return b.NewArray(), nil
}

// FloatSum is one group of floatSumAcc for a caller that sums a float
// frame row by row (the window operator's framed sum and avg): the same
// steps as GROUP BY's, so a window's sum(x) OVER () equals sum(x).
type FloatSum struct{ acc floatSumAcc }

// NewFloatSum sums (avg false) or averages a float64 or, with f32, a
// float32 column.
func NewFloatSum(avg, f32 bool) *FloatSum {
	s := &FloatSum{acc: floatSumAcc{avg: avg, f32: f32}}
	s.acc.grow(1)
	return s
}

// Reset empties the sum.
func (s *FloatSum) Reset() {
	s.acc.n[0], s.acc.sx[0], s.acc.sxx[0], s.acc.set[0] = 0, 0, 0, false
}

// Add adds v, raising "value out of range: overflow" as PostgreSQL does.
func (s *FloatSum) Add(v float64) error { return s.acc.add(0, v) }

// Result is the sum, or for avg the mean; ok is false before any value
// (the SQL result is then NULL).
func (s *FloatSum) Result() (v float64, ok bool) {
	if !s.acc.set[0] {
		return 0, false
	}
	if s.acc.avg {
		return s.acc.sx[0] / s.acc.n[0], true
	}
	return s.acc.sx[0], true
}
