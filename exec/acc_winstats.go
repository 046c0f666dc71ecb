package exec

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/value"
)

// The states of stddev_samp, stddev_pop, var_samp and var_pop that the
// window operator (exec/window) evaluates over every row's frame, with
// acc_stddev.go's final functions, so that a window's answer is GROUP BY's
// over the frame's rows.

// IsStatsFunc reports whether f is one of the four.
func IsStatsFunc(f AggregateFunc) bool { return isStats(f) }

// NumericStatsPrefix is N, sumX and sumX2 of an integer or numeric column
// totalled over its first i rows, for every i: a frame's state is the
// difference of two (PostgreSQL's moving aggregate for these types,
// int8_accum with int8_accum_inv and numeric_accum with numeric_accum_inv,
// removes rows exactly; here the removal is a subtraction of prefix
// totals). sumX2 prefixes are uint320 sums of squares, whose difference
// mod 2^320 is the frame's exact sum (below 2^320 for fewer than 2^66 rows).
type NumericStatsPrefix struct {
	kind   statsKind
	scale  int32
	typ    *arrow.Decimal128Type
	counts []int64
	sx     []value.Int192
	sxx    []uint320
}

// NumericStatsPrefixBytes is what a NumericStatsPrefix holds per row.
const NumericStatsPrefixBytes = 8 + 24 + 40

// NewNumericStatsPrefix totals x (an integer or decimal column) for f.
func NewNumericStatsPrefix(f AggregateFunc, x arrow.Array) (*NumericStatsPrefix, error) {
	t, _, err := statsSignature(Aggregate{Func: f}, x.DataType())
	if err != nil {
		return nil, err
	}
	typ, ok := t.(*arrow.Decimal128Type)
	if !ok {
		return nil, fmt.Errorf("%w: exact %s of %s", physexpr.ErrInvalidArgument, f, x.DataType())
	}
	var s int32
	if d, ok := x.DataType().(*arrow.Decimal128Type); ok {
		s = d.Scale
	}
	n := x.Len()
	p := &NumericStatsPrefix{kind: statsKindOf(f), scale: s, typ: typ,
		counts: make([]int64, n+1), sx: make([]value.Int192, n+1), sxx: make([]uint320, n+1)}
	// One group a row (NULL rows skipped), read by GROUP BY's update for
	// every integer width and decimals, then totalled.
	acc := &numStatsAcc{kind: p.kind, scale: s, typ: typ}
	groups := make([]uint32, n)
	for i := range groups {
		groups[i] = uint32(i)
	}
	if err := acc.update([]arrow.Array{x}, groups, n); err != nil {
		return nil, err
	}
	for i := range n {
		p.counts[i+1], p.sx[i+1], p.sxx[i+1] = p.counts[i]+acc.counts[i], p.sx[i], p.sxx[i]
		p.sx[i+1].Merge(acc.sx[i])
		p.sxx[i+1].merge(acc.sxx[i])
	}
	return p, nil
}

// Type is the result type: numeric(38, DecimalDivScale(s, 0)).
func (p *NumericStatsPrefix) Type() *arrow.Decimal128Type { return p.typ }

// Frame is the function over rows [s, e): ok false for PostgreSQL's NULL
// (no row, or one for the sample forms).
func (p *NumericStatsPrefix) Frame(s, e int) (decimal128.Num, bool, error) {
	return p.Runs([][2]int{{s, e}})
}

// Runs is the function over the rows of the disjoint runs [s, e) of
// runs: a frame with EXCLUDE (exec/window) is up to three of them, whose
// exact totals add.
func (p *NumericStatsPrefix) Runs(runs [][2]int) (decimal128.Num, bool, error) {
	var n int64
	var sx value.Int192
	var sxx uint320
	rows := false
	for _, r := range runs {
		s, e := r[0], r[1]
		if e <= s {
			continue
		}
		rows = true
		n += p.counts[e] - p.counts[s]
		sx.Merge(p.sx[e].Minus(p.sx[s]))
		sxx.merge(p.sxx[e].minus(p.sxx[s]))
	}
	if !rows {
		return decimal128.Num{}, false, nil
	}
	if v, ok, handled := numericStatsFinal64(p.kind, p.scale, p.typ.Scale, n, sx, sxx); handled {
		return v, ok, nil
	}
	return numericStatsFinal(p.kind, p.scale, p.typ.Scale, n, sx.BigInt(), sxx.bigInt())
}

// minus is u - o mod 2^320.
func (u uint320) minus(o uint320) uint320 {
	var b uint64
	for i := range u {
		u[i], b = bits.Sub64(u[i], o[i], b)
	}
	return u
}

// FloatStats is float8_accum's state (N, Sx, Sxx) of one frame of a float
// column, for a caller that adds the frame's rows one by one, as
// PostgreSQL 15 does (float8_accum has no inverse: a frame whose start
// moves is recomputed from its first row, advance_windowaggregate).
type FloatStats struct {
	acc  floatSumAcc
	kind statsKind
}

// NewFloatStats is an empty state for f.
func NewFloatStats(f AggregateFunc) *FloatStats {
	s := &FloatStats{acc: floatSumAcc{avg: true}, kind: statsKindOf(f)}
	s.acc.grow(1)
	return s
}

// Reset empties the state.
func (s *FloatStats) Reset() {
	s.acc.n[0], s.acc.sx[0], s.acc.sxx[0], s.acc.set[0] = 0, 0, 0, false
}

// Add is float8_accum's step, raising "value out of range: overflow" as
// PostgreSQL does.
func (s *FloatStats) Add(v float64) error { return s.acc.add(0, v) }

// State is the current N, Sx, Sxx.
func (s *FloatStats) State() FloatStatsState {
	return FloatStatsState{N: s.acc.n[0], Sx: s.acc.sx[0], Sxx: s.acc.sxx[0]}
}

// Result is the final function over the state: ok false for NULL.
func (s *FloatStats) Result() (float64, bool) {
	return floatStatsFinal(s.kind, s.acc.n[0], s.acc.sxx[0])
}

// FloatStatsState is float8_accum's transition state.
type FloatStatsState struct{ N, Sx, Sxx float64 }

// FloatStatsResult is f's final function over st (float8_var_samp,
// float8_var_pop, float8_stddev_samp, float8_stddev_pop): ok false for
// NULL.
func FloatStatsResult(f AggregateFunc, st FloatStatsState) (float64, bool) {
	return floatStatsFinal(statsKindOf(f), st.N, st.Sxx)
}

// Finite reports whether Sx and Sxx are finite: a state merged from
// parts is then the one PostgreSQL's running state would hold up to
// rounding; an infinite or NaN one (an infinite or NaN input, or an
// overflow, which PostgreSQL raises only for finite inputs) is not.
func (st FloatStatsState) Finite() bool {
	return !math.IsInf(st.Sx, 0) && !math.IsNaN(st.Sx) && !math.IsInf(st.Sxx, 0) && !math.IsNaN(st.Sxx)
}

// CombineFloatStats is PostgreSQL's float8_combine, the state of a's rows
// followed by b's (Chan et al.'s pairwise update of the sum of squares).
func CombineFloatStats(a, b FloatStatsState) FloatStatsState {
	switch {
	case a.N == 0:
		return b
	case b.N == 0:
		return a
	}
	n := a.N + b.N
	tmp := a.Sx/a.N - b.Sx/b.N
	return FloatStatsState{N: n, Sx: a.Sx + b.Sx, Sxx: a.Sxx + b.Sxx + a.N*b.N*tmp*tmp/n}
}
