package exec

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/value"
	"github.com/stretchr/testify/require"
)

var statsFuncs = []AggregateFunc{AggStdDevSamp, AggStdDevPop, AggVarSamp, AggVarPop}

// statsReference is numeric_stddev_internal recomputed with big.Rat and
// big.Float from the values (unscaled, at scale s): the exact variance
// rounded half up at select_div_scale's rscale r, its square root rounded
// at r, then rounded to (or padded to) scale to. ok is false for NULL.
func statsReference(f AggregateFunc, vals []*big.Int, s, to int32) (string, bool) {
	k := statsKindOf(f)
	n := int64(len(vals))
	if n == 0 || (k.sample && n == 1) {
		return "", false
	}
	mean := new(big.Rat)
	for _, v := range vals {
		mean.Add(mean, new(big.Rat).SetFrac(v, value.Pow10(s)))
	}
	mean.Quo(mean, new(big.Rat).SetInt64(n))
	ss := new(big.Rat) // sum of squared deviations: N*sumX2 - sumX^2 over N
	for _, v := range vals {
		d := new(big.Rat).Sub(new(big.Rat).SetFrac(v, value.Pow10(s)), mean)
		ss.Add(ss, d.Mul(d, d))
	}
	if ss.Sign() == 0 {
		return value.FormatBigDecimal(new(big.Int), to), true
	}
	d := n
	if k.sample {
		d = n - 1
	}
	vr := new(big.Rat).Quo(ss, new(big.Rat).SetInt64(d))
	// select_div_scale's operands: N*ss*N (scale 2s) over N*d.
	num := new(big.Rat).Mul(ss, new(big.Rat).SetInt64(n))
	num.Mul(num, new(big.Rat).SetInt(value.Pow10(2*s)))
	r := physexpr.DecimalDivRScale(num.Num(), 2*s, big.NewInt(n*d), 0)
	round := func(x *big.Rat, r int32) *big.Rat { // half up, x >= 0
		y := new(big.Rat).Mul(x, new(big.Rat).SetInt(value.Pow10(r)))
		y.Add(y, big.NewRat(1, 2))
		q := new(big.Int).Quo(y.Num(), y.Denom())
		return new(big.Rat).SetFrac(q, value.Pow10(r))
	}
	res := round(vr, r)
	if k.sqrt {
		bf := new(big.Float).SetPrec(4096).SetRat(res)
		bf.Sqrt(bf)
		// Enough precision that rounding at r decides right.
		sq, _ := bf.Rat(nil)
		res = round(sq, r)
	}
	res = round(res, to)
	out := new(big.Int).Mul(res.Num(), value.Pow10(to))
	out.Quo(out, res.Denom())
	return value.FormatBigDecimal(out, to), true
}

// The four over integers and numerics: one pass, and random splits into
// partial states merged in a final phase, equal the big.Rat reference
// (and so each other), with NULLs skipped, an empty group NULL and a
// one-row group NULL for the sample forms.
func TestNumericStatsMerge(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(7, 29))
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, &arrow.Decimal128Type{Precision: 38, Scale: 2}, &arrow.Decimal128Type{Precision: 38, Scale: 6}}
	for round := range 60 {
		in := types[round%len(types)]
		var s int32
		if d, ok := in.(*arrow.Decimal128Type); ok {
			s = d.Scale
		}
		const ngroups = 5
		nrows := rng.IntN(40)
		vals := make([]*big.Int, nrows)
		valid := make([]bool, nrows)
		groups := make([]uint32, nrows)
		// Values about a base: 0, or one near the type's limits, whose
		// squares pass 128 bits (and sumX2 192); the deviations are small
		// enough that the result fits numeric(38, 20).
		base := new(big.Int)
		if round%2 == 1 {
			base.Lsh(big.NewInt(1), 62)
			if s > 0 {
				base = new(big.Int).Mul(big.NewInt(rng.Int64N(9)+1), value.Pow10(36))
			}
			if rng.IntN(2) == 0 {
				base.Neg(base)
			}
		}
		for i := range vals {
			v := new(big.Int).Add(base, big.NewInt(rng.Int64N(1<<28)-1<<27))
			if rng.IntN(3) == 0 {
				v.Add(base, big.NewInt(rng.Int64N(2001)-1000))
			}
			vals[i], valid[i] = v, rng.IntN(8) != 0
			groups[i] = uint32(rng.IntN(ngroups - 1)) // the last group stays empty
			if rng.IntN(10) == 0 {
				groups[i] = 1 // one group of several rows, often
			}
		}
		for _, f := range statsFuncs {
			out, mk, err := aggSignature(Aggregate{Func: f}, []arrow.DataType{in})
			require.NoError(t, err)
			to := out.(*arrow.Decimal128Type).Scale
			want := make([]*string, ngroups)
			for g := range ngroups {
				var gv []*big.Int
				for i := range vals {
					if valid[i] && groups[i] == uint32(g) {
						gv = append(gv, vals[i])
					}
				}
				if w, ok := statsReference(f, gv, s, to); ok {
					want[g] = &w
				}
			}
			// One pass.
			one := mk()
			col := statsColumn(mem, in, vals, valid)
			require.NoError(t, one.update([]arrow.Array{col}, groups, ngroups))
			got, err := one.emit(mem, ngroups)
			require.NoError(t, err)
			requireDecimals(t, got, to, want, "one pass %s %s", f, in)
			got.Release()
			// Partial states over random chunks, merged.
			fin := &numStatsMerge{mk().(*numStatsAcc)}
			for lo := 0; lo < nrows; {
				hi := lo + 1 + rng.IntN(nrows-lo)
				part := &numStatsState{mk().(*numStatsAcc)}
				sl := array.NewSlice(col, int64(lo), int64(hi))
				require.NoError(t, part.update([]arrow.Array{sl}, groups[lo:hi], ngroups))
				sl.Release()
				cols, err := part.emitColumns(mem, ngroups)
				require.NoError(t, err)
				require.Len(t, cols, len(numStatsStateFields("x")))
				require.NoError(t, fin.update(cols, []uint32{0, 1, 2, 3, 4}, ngroups))
				for _, c := range cols {
					c.Release()
				}
				lo = hi
			}
			got, err = fin.emit(mem, ngroups)
			require.NoError(t, err)
			requireDecimals(t, got, to, want, "merged %s %s", f, in)
			got.Release()
			col.Release()
		}
	}
}

func statsColumn(mem memory.Allocator, t arrow.DataType, vals []*big.Int, valid []bool) arrow.Array {
	if t.ID() == arrow.INT64 {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for i, v := range vals {
			if valid[i] {
				b.Append(v.Int64())
			} else {
				b.AppendNull()
			}
		}
		return b.NewArray()
	}
	nums := make([]decimal128.Num, len(vals))
	for i, v := range vals {
		nums[i] = decimal128.FromBigInt(v)
	}
	return arrowtest.DecimalArray(mem, t.(*arrow.Decimal128Type), nums, valid)
}

func requireDecimals(t *testing.T, got arrow.Array, scale int32, want []*string, msg string, args ...any) {
	t.Helper()
	d := got.(*array.Decimal128)
	require.Equal(t, len(want), d.Len())
	for g, w := range want {
		if w == nil {
			require.Truef(t, d.IsNull(g), msg+" group %d: want NULL", append(args, g)...)
			continue
		}
		require.Falsef(t, d.IsNull(g), msg+" group %d: NULL, want %s", append(args, g, *w)...)
		require.Equalf(t, *w, value.FormatDecimal(d.Value(g), scale), msg+" group %d", append(args, g)...)
	}
}

// PostgreSQL 15's answers (psql): over the integers 1, 2, 4 stddev_samp
// is 1.5275252316519467 and stddev_pop 1.2472191289246471 (rscale 16);
// over the numeric(10,4) values 1, 1.0001, 1.0002 stddev_pop is
// 0.0000816496580927726032734469 (rscale 28), here rounded to the
// column's 20 digits.
func TestNumericStatsPostgres(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cases := []struct {
		f    AggregateFunc
		in   arrow.DataType
		vals []int64
		want string
	}{
		{AggStdDevSamp, arrow.PrimitiveTypes.Int32, []int64{1, 2, 4}, "1.52752523165194670000"},
		{AggStdDevPop, arrow.PrimitiveTypes.Int32, []int64{1, 2, 4}, "1.24721912892464710000"},
		{AggVarPop, arrow.PrimitiveTypes.Int32, []int64{7}, "0.00000000000000000000"},
		{AggStdDevPop, &arrow.Decimal128Type{Precision: 10, Scale: 4}, []int64{10000, 10001, 10002}, "0.00008164965809277260"},
		{AggVarSamp, &arrow.Decimal128Type{Precision: 10, Scale: 2}, []int64{150, 225}, "0.28125000000000000000"},
	}
	for _, c := range cases {
		out, mk, err := aggSignature(Aggregate{Func: c.f}, []arrow.DataType{c.in})
		require.NoError(t, err)
		var col arrow.Array
		if c.in.ID() == arrow.INT32 {
			b := array.NewInt32Builder(mem)
			for _, v := range c.vals {
				b.Append(int32(v))
			}
			col = b.NewArray()
			b.Release()
		} else {
			nums := make([]decimal128.Num, len(c.vals))
			for i, v := range c.vals {
				nums[i] = decimal128.FromI64(v)
			}
			col = arrowtest.DecimalArray(mem, c.in.(*arrow.Decimal128Type), nums, nil)
		}
		acc := mk()
		require.NoError(t, acc.update([]arrow.Array{col}, make([]uint32, len(c.vals)), 1))
		got, err := acc.emit(mem, 1)
		require.NoError(t, err)
		require.Equal(t, c.want, value.FormatDecimal(got.(*array.Decimal128).Value(0), out.(*arrow.Decimal128Type).Scale), "%s%v", c.f, c.vals)
		got.Release()
		col.Release()
	}
}

// Over floats: float8_accum's state, Sxx / (N-1) or / N, against the
// exact big.Rat variance (to a relative 1e-12), NULL below two rows
// (sample) or one (population), double precision of real too.
func TestFloatStats(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	vals := []float64{1.5, 2.5, -3.25, 1e6, 0.125}
	b := array.NewFloat64Builder(mem)
	b.AppendValues(vals, nil)
	b.AppendNull()
	col := b.NewArray()
	b.Release()
	defer col.Release()
	// Group 0: every value and the NULL; group 1: one value; group 2: none.
	groups := []uint32{0, 0, 0, 0, 1, 0}
	n := float64(len(vals) - 1)
	mean := new(big.Rat)
	for _, v := range vals[:4] {
		mean.Add(mean, new(big.Rat).SetFloat64(v))
	}
	mean.Quo(mean, new(big.Rat).SetFloat64(n))
	ss := new(big.Rat)
	for _, v := range vals[:4] {
		d := new(big.Rat).Sub(new(big.Rat).SetFloat64(v), mean)
		ss.Add(ss, d.Mul(d, d))
	}
	for _, f := range statsFuncs {
		out, mk, err := aggSignature(Aggregate{Func: f}, []arrow.DataType{arrow.PrimitiveTypes.Float32})
		require.NoError(t, err)
		require.True(t, arrow.TypeEqual(out, arrow.PrimitiveTypes.Float64), "%s(real) is %s", f, out)
		_, mk, err = aggSignature(Aggregate{Func: f}, []arrow.DataType{arrow.PrimitiveTypes.Float64})
		require.NoError(t, err)
		acc := mk()
		require.NoError(t, acc.update([]arrow.Array{col}, groups, 3))
		got, err := acc.emit(mem, 3)
		require.NoError(t, err)
		k := statsKindOf(f)
		d := n
		if k.sample {
			d = n - 1
		}
		w, _ := new(big.Rat).Quo(ss, new(big.Rat).SetFloat64(d)).Float64()
		if k.sqrt {
			w = math.Sqrt(w)
		}
		g := got.(*array.Float64)
		require.InEpsilon(t, w, g.Value(0), 1e-12, "%s", f)
		require.Equal(t, k.sample, g.IsNull(1), "%s of one row", f)
		if !k.sample {
			require.Equal(t, 0.0, g.Value(1))
		}
		require.True(t, g.IsNull(2), "%s of no rows", f)
		got.Release()
	}
}

// A result of more than 38 - 20 integer digits (PostgreSQL's numeric has
// no such limit) is "numeric field overflow", typed, never a wrapped value.
func TestNumericStatsOverflow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, mk, err := aggSignature(Aggregate{Func: AggVarPop}, []arrow.DataType{arrow.PrimitiveTypes.Int64})
	require.NoError(t, err)
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{math.MinInt64, math.MaxInt64}, nil)
	col := b.NewArray()
	b.Release()
	defer col.Release()
	acc := mk()
	require.NoError(t, acc.update([]arrow.Array{col}, []uint32{0, 0}, 1))
	_, err = acc.emit(mem, 1)
	require.ErrorIs(t, err, errkind.OutOfRange)
}
