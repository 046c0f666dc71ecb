package exec

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sortKeyTypes are the column types the normalized-key sort is checked on.
var sortKeyTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int16,
	arrow.PrimitiveTypes.Uint64, arrow.PrimitiveTypes.Uint32, arrow.FixedWidthTypes.Date32,
	arrow.FixedWidthTypes.Timestamp_us, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float32,
	arrow.FixedWidthTypes.Boolean, arrow.BinaryTypes.String, &arrow.Decimal128Type{Precision: 38, Scale: 2},
}

// randSortColumn is n values of t with many ties, NULLs at rate nulls,
// and the awkward values: extremes, -0 and NaN, strings sharing 8-byte
// prefixes, decimals past 64 bits when wide is set.
func randSortColumn(mem memory.Allocator, r *rand.Rand, t arrow.DataType, n int, nulls float64, wide bool) arrow.Array {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	small := func() int64 {
		switch r.IntN(10) {
		case 0:
			return math.MaxInt64 - r.Int64N(2)
		case 1:
			return math.MinInt64 + r.Int64N(2)
		}
		return r.Int64N(20) - 10
	}
	for range n {
		if r.Float64() < nulls {
			b.AppendNull()
			continue
		}
		switch b := b.(type) {
		case *array.Int64Builder:
			b.Append(small())
		case *array.Int32Builder:
			b.Append(int32(small()))
		case *array.Int16Builder:
			b.Append(int16(small()))
		case *array.Uint64Builder:
			b.Append(uint64(small()))
		case *array.Uint32Builder:
			b.Append(uint32(small()))
		case *array.Date32Builder:
			b.Append(arrow.Date32(int32(small())))
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(small()))
		case *array.Float64Builder:
			b.Append([]float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), -1.5, 2.25, float64(small())}[r.IntN(8)])
		case *array.Float32Builder:
			b.Append([]float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 0, float32(math.Inf(-1)), 3.5, float32(small())}[r.IntN(6)])
		case *array.BooleanBuilder:
			b.Append(r.IntN(2) == 0)
		case *array.StringBuilder:
			b.Append([]string{"", "a", "abcdefgh", "abcdefghi", "abcdefghj", "abcdefgh\x00", "b", "zz", "\xff"}[r.IntN(9)])
		case *array.Decimal128Builder:
			v := decimal128.FromI64(small())
			if wide && r.IntN(4) == 0 {
				v = decimal128.New(r.Int64N(5)-2, r.Uint64())
			}
			b.Append(v)
		}
	}
	return b.NewArray()
}

// checkNormalizedSort sorts a random batch both ways and compares.
func checkNormalizedSort(t *testing.T, seed uint64) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(seed, seed^0x9e37))
	n := r.IntN(700) + 1
	off := r.IntN(5) // sliced arrays: the offset is where bugs hide
	nk := r.IntN(3) + 1
	fields := make([]arrow.Field, nk)
	cols := make([]arrow.Array, nk)
	keys := make([]SortKey, nk)
	nulls := []float64{0, 0.1, 0.6}[r.IntN(3)]
	for k := range nk {
		typ := sortKeyTypes[r.IntN(len(sortKeyTypes))]
		fields[k] = arrow.Field{Name: string(rune('a' + k)), Type: typ, Nullable: true}
		full := randSortColumn(mem, r, typ, n+off, nulls, r.IntN(2) == 0)
		cols[k] = array.NewSlice(full, int64(off), int64(off+n))
		full.Release()
		keys[k] = SortKey{Column: k, Descending: r.IntN(2) == 0, NullsFirst: r.IntN(2) == 0}
	}
	all := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	ReleaseArrays(cols)
	defer all.Release()
	cmps, err := KeyComparators(all, keys)
	if err != nil {
		t.Fatal(err)
	}
	want := sortByComparators(cmps, n, nil)
	var rest func(a, b int) int
	if nk > 1 {
		rest = func(a, b int) int {
			for _, c := range cmps[1:] {
				if r := c(a, b); r != 0 {
					return r
				}
			}
			return 0
		}
	}
	counted := 0 // a pass that counts: it must not change the order
	got, ok := sortNormalized(all.Column(0), keys[0], n, rest, laterWords(all, keys), func(k int) { counted += k })
	if !ok {
		// Only a decimal column with a value past 64 bits has no word form.
		if _, isDec := fields[0].Type.(*arrow.Decimal128Type); !isDec {
			t.Fatalf("seed %d: %s has no normalized form", seed, fields[0].Type)
		}
		return
	}
	if !slices.Equal(got, want) {
		var desc strings.Builder
		for k := range nk {
			desc.WriteString(fields[k].Type.String() + " " + keys[k].String() + "; ")
		}
		t.Fatalf("seed %d (%s n=%d off=%d): normalized order differs from the comparators'\n got %v\nwant %v", seed, desc.String(), n, off, got[:min(len(got), 40)], want[:min(len(want), 40)])
	}
}

// TestSortNormalizedEqualsComparators: the normalized-key sort (radix for
// one exact key, pdqsort on words otherwise) gives exactly the stable
// order of the comparator sort, for every key type, direction and NULL
// placement, over many random batches.
func TestSortNormalizedEqualsComparators(t *testing.T) {
	for seed := range uint64(400) {
		checkNormalizedSort(t, seed)
	}
}

func FuzzSortNormalized(f *testing.F) {
	for _, s := range []uint64{1, 7, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { checkNormalizedSort(t, seed) })
}

// TestRadixSortWordsLarge covers the radix passes (under 256 words the
// sort is a stable comparison sort) and the skipped constant bytes.
func TestRadixSortWordsLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, spread := range []uint64{1, 300, 1 << 20, math.MaxUint64} {
		ws := make([]sortWord, 5000)
		for i := range ws {
			k := r.Uint64()
			if spread != math.MaxUint64 {
				k = 1<<40 + r.Uint64N(spread)
			}
			ws[i] = sortWord{k: k, row: int32(i)}
		}
		want := slices.Clone(ws)
		slices.SortStableFunc(want, func(a, b sortWord) int {
			switch {
			case a.k < b.k:
				return -1
			case a.k > b.k:
				return 1
			}
			return 0
		})
		if got := radixSortWords(ws, func(int) {}); !slices.Equal(got, want) {
			t.Fatalf("spread %d: radix order differs", spread)
		}
	}
}
