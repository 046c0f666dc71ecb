package plan

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/internal/fuzzseed"
)

// castSeeds: values at the edges of both conversions, 9 bytes each (8
// little-endian value bytes, 1 validity byte).
func castSeeds() [][]byte {
	rec := func(vals ...uint64) []byte {
		var b []byte
		for i, v := range vals {
			b = binary.LittleEndian.AppendUint64(b, v)
			b = append(b, byte(1-i%3/2)) // every third value NULL
		}
		return b
	}
	return [][]byte{
		rec(0, 1, 7),
		rec(math.MaxInt64, 1<<63, math.MaxUint64),
		rec(1<<53, 1<<53+1, 1<<53+3, 1<<63-1),
		rec(uint64(1<<64-1<<53-1), 1<<62, 5),
		rec(0, math.MaxInt64),  // no NULL, no negative: toRowID's no-copy path
		rec(5, math.MaxUint64), // no NULL, a negative bigint (-1)
	}
}

// TestFuzzRowIDCastsCorpus regenerates testdata/fuzz/FuzzRowIDCasts
// (STABLEROW_WRITE_CORPUS=1).
func TestFuzzRowIDCastsCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzRowIDCasts", castSeeds())
}

// FuzzRowIDCasts checks the three conversions the planner adds to
// expressions against independent oracles: asInt64 (uint64 row id ->
// bigint) fails exactly when a valid value exceeds MaxInt64 and otherwise
// keeps every value and NULL; intToFloat (bigint -> double precision)
// gives the nearest double with ties to even, computed with math/big;
// toRowID (bigint -> row id) keeps valid non-negative values and makes
// every other one NULL.
func FuzzRowIDCasts(f *testing.F) {
	for _, s := range castSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n := len(data) / 9
		if n == 0 {
			return
		}
		vals := make([]uint64, n)
		valid := make([]bool, n)
		for i := range vals {
			vals[i] = binary.LittleEndian.Uint64(data[9*i:])
			valid[i] = data[9*i+8]&1 == 1
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		ctx := context.Background()

		ub := array.NewUint64Builder(mem)
		ub.AppendValues(vals, valid)
		ua := ub.NewArray()
		ub.Release()
		usc := arrow.NewSchema([]arrow.Field{{Name: "_rowid", Type: arrow.PrimitiveTypes.Uint64, Nullable: true}}, nil)
		ubatch := array.NewRecordBatch(usc, []arrow.Array{ua}, int64(n))
		ua.Release()
		defer ubatch.Release()
		wantErr := false
		for i, v := range vals {
			wantErr = wantErr || (valid[i] && v > math.MaxInt64)
		}
		got, err := asInt64{physexpr.Col{Index: 0}}.Evaluate(ctx, mem, ubatch)
		if wantErr != (err != nil) || (err != nil && !errors.Is(err, ErrOutOfRange)) {
			t.Fatalf("asInt64 %v (valid %v): err %v", vals, valid, err)
		}
		if err == nil {
			g := got.(*array.Int64)
			for i, v := range vals {
				if g.IsValid(i) != valid[i] || (valid[i] && g.Value(i) != int64(v)) {
					t.Fatalf("asInt64 row %d: %v", i, g)
				}
			}
			got.Release()
		}

		ib := array.NewInt64Builder(mem)
		for i, v := range vals {
			if valid[i] {
				ib.Append(int64(v))
			} else {
				ib.AppendNull()
			}
		}
		ia := ib.NewArray()
		ib.Release()
		isc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
		ibatch := array.NewRecordBatch(isc, []arrow.Array{ia}, int64(n))
		ia.Release()
		defer ibatch.Release()
		fa, err := physexpr.Cast{E: physexpr.Col{Index: 0}, To: arrow.PrimitiveTypes.Float64}.Evaluate(ctx, mem, ibatch)
		if err != nil {
			t.Fatal(err)
		}
		defer fa.Release()
		fl := fa.(*array.Float64)
		for i, v := range vals {
			if fl.IsValid(i) != valid[i] {
				t.Fatalf("intToFloat row %d: validity", i)
			}
			if valid[i] && !nearestEven(int64(v), fl.Value(i)) {
				t.Fatalf("intToFloat(%d) = %v, not the nearest double", int64(v), fl.Value(i))
			}
		}

		// toRowID (bigint -> row id), whole and from row 1 on (a slice
		// with an offset, which the no-copy path must keep): a valid
		// non-negative value keeps its bits, anything else is NULL.
		for from := 0; from < min(n, 2); from++ {
			b := ibatch.NewSlice(int64(from), int64(n))
			ra, err := toRowID{physexpr.Col{Index: 0}}.Evaluate(ctx, mem, b)
			b.Release()
			if err != nil {
				t.Fatal(err)
			}
			r := ra.(*array.Uint64)
			for i, v := range vals[from:] {
				want := valid[from+i] && int64(v) >= 0
				if r.IsValid(i) != want || (want && r.Value(i) != v) {
					t.Fatalf("toRowID row %d of %d (from %d): %v, want valid=%v %d", i, n, from, r, want, v)
				}
			}
			ra.Release()
		}
	})
}

// nearestEven reports whether f is the double nearest to x, ties going to
// the one with an even mantissa.
func nearestEven(x int64, f float64) bool {
	exact := new(big.Float).SetPrec(0).SetInt64(x)
	dist := func(g float64) *big.Float {
		d := new(big.Float).SetPrec(200).Sub(new(big.Float).SetPrec(200).SetFloat64(g), exact)
		return d.Abs(d)
	}
	d := dist(f)
	for _, g := range []float64{math.Nextafter(f, math.Inf(1)), math.Nextafter(f, math.Inf(-1))} {
		switch dist(g).Cmp(d) {
		case -1:
			return false
		case 0: // a tie: f must be the one with the even mantissa
			if math.Float64bits(f)&1 != 0 {
				return false
			}
		}
	}
	return true
}

// TestFuzzRowIDCastsAllValid: the seeds all have NULLs; toRowID's no-copy
// path (no NULL, no negative) runs here, on an offset slice too.
func TestFuzzRowIDCastsAllValid(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{9, 0, math.MaxInt64, 3}, nil)
	ia := ib.NewArray()
	ib.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBatch(sc, []arrow.Array{ia}, 4)
	ia.Release()
	defer b.Release()
	s := b.NewSlice(1, 4)
	defer s.Release()
	ra, err := toRowID{physexpr.Col{Index: 0}}.Evaluate(context.Background(), mem, s)
	if err != nil {
		t.Fatal(err)
	}
	defer ra.Release()
	r := ra.(*array.Uint64)
	if r.NullN() != 0 || r.Len() != 3 || r.Value(0) != 0 || r.Value(1) != math.MaxInt64 || r.Value(2) != 3 {
		t.Fatalf("toRowID = %v", r)
	}
}
