package table

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table/store"
)

// TestSortByAddr checks the take's address sort, both the compacted-key
// radix sort and its comparison-sort fallback, by whole address and by offset
// groups of 8 and 4096 rows, against a stable comparison sort:
// duplicate addresses must keep position order, and the positions need not
// be every index of addrs (invalid addresses are left out of order).
func TestSortByAddr(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	cases := []struct {
		name      string
		n         int
		frags     []uint32 // fragment ids to draw from
		maxOff    uint32
		dupEvery  int // every dupEvery-th address repeats an earlier one
		skipEvery int // every skipEvery-th position is left out
	}{
		{"small", 100, []uint32{0, 1}, 1000, 3, 0},
		{"one-fragment", 5000, []uint32{7}, 1 << 20, 0, 0},
		{"ten-fragments", 100_000, []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 1<<20 - 1, 5, 7},
		{"sparse-ids", 20_000, []uint32{3, 1000, 70_000, 1 << 31}, 65_535, 2, 0},
		{"same-address", 3000, []uint32{2}, 0, 1, 0},
		{"too-wide", 4000, []uint32{0, 1<<32 - 1}, 1<<32 - 1, 4, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			addrs := make([]uint64, c.n)
			for i := range addrs {
				if c.dupEvery > 0 && i > 0 && i%c.dupEvery == 0 {
					addrs[i] = addrs[r.IntN(i)]
					continue
				}
				f := c.frags[r.IntN(len(c.frags))]
				off := uint32(0)
				if c.maxOff > 0 {
					off = uint32(r.Uint64N(uint64(c.maxOff) + 1))
				}
				if i == 0 {
					off = c.maxOff // the widest offset is present
				}
				addrs[i] = uint64(f)<<32 | uint64(off)
			}
			var order []int32
			for i := range addrs {
				if c.skipEvery == 0 || i%c.skipEvery != 1 {
					order = append(order, int32(i))
				}
			}
			for _, shift := range []uint{0, 3, 12} {
				group := func(a uint64) uint64 { return a&^(1<<32-1) | uint64(uint32(a)>>shift) }
				want := slices.Clone(order)
				slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(group(addrs[a]), group(addrs[b])) })
				got := slices.Clone(order)
				sortByAddr(got, addrs, shift)
				for j := range got {
					if got[j] != want[j] {
						t.Fatalf("shift %d, position %d: %d (address %#x), want %d (address %#x)", shift, j, got[j], addrs[got[j]], want[j], addrs[want[j]])
					}
				}
			}
		})
	}
}

// TestTakeRejectsBadAddresses: an address in no fragment of the version,
// or past its fragment's rows, is ErrInvalidArgument wherever it falls in
// the sorted order (first, inside a run, last), and nothing leaks; the
// same address at a position marked invalid is not looked at.
func TestTakeRejectsBadAddresses(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	tb, err := Create(ctx, store.NewMemory(), schema, Options{MaxRowsPerFragment: 100, BatchRows: 16})
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewInt64Builder(mem)
	for i := range 250 {
		b.Append(int64(i))
	}
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 250)
	col.Release()
	rdr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	if tb, err = tb.Append(ctx, rdr, mem); err != nil {
		t.Fatal(err)
	}
	rdr.Release()
	rec.Release()
	fr := tb.Manifest().Fragments
	if len(fr) != 3 {
		t.Fatalf("fixture: %d fragments", len(fr))
	}
	good := func(f, off int) uint64 { return uint64(fr[f].ID)<<32 | uint64(off) }
	missing := uint64(fr[2].ID+5) << 32
	past := uint64(fr[1].ID)<<32 | fr[1].PhysicalRows
	for name, addrs := range map[string][]uint64{
		"missing fragment":       {good(0, 3), good(1, 4), missing},
		"past the rows, mid-run": {good(1, 2), past, good(2, 1)},
		"past the first run":     {good(0, int(fr[0].PhysicalRows)), good(1, 0)},
	} {
		for _, n := range []int{1, 300} { // comparison-sorted and radix-sorted inputs
			in := slices.Repeat(addrs, n)
			if _, err := tb.Take(ctx, in, nil, []string{"v", RowAddr}, mem); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("%s ×%d: %v, want ErrInvalidArgument", name, n, err)
			}
		}
	}
	rec2, err := tb.Take(ctx, []uint64{good(0, 1), missing, good(2, 3)}, []bool{true, false, true}, []string{"v"}, mem)
	if err != nil {
		t.Fatalf("an invalid position was looked at: %v", err)
	}
	v := rec2.Column(0).(*array.Int64)
	if v.Value(0) != 1 || !v.IsNull(1) || v.Value(2) != 203 {
		t.Fatalf("take %v", v)
	}
	rec2.Release()
}

// BenchmarkSortByAddr1M sorts the positions of 1M random addresses over
// ten 1M-row fragments into 4096-row groups, a 1M-id take's sort.
func BenchmarkSortByAddr1M(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	addrs := make([]uint64, 1_000_000)
	for i := range addrs {
		addrs[i] = r.Uint64N(10)<<32 | r.Uint64N(1<<20)
	}
	order := make([]int32, len(addrs))
	for b.Loop() {
		for i := range order {
			order[i] = int32(i)
		}
		sortByAddr(order, addrs, 12)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(addrs)), "ns/addr")
}

// TestLabelsByOrderKeys checks the recluster's radix path against its
// comparator path (a stable sort of the positions) on integer keys: many
// duplicates, negative values, keys spanning all 64 bits, a single key,
// and destination counts from 1 to more than the rows.
func TestLabelsByOrderKeys(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(12, 12))
	for _, n := range []int{1, 2, 100, 5000} {
		for _, spread := range []int64{1, 3, 1000, 1 << 30, 1 << 62, 0} {
			for _, want := range []int{1, 2, 7, 64, 10_000} {
				vals := make([]int64, n)
				for i := range vals {
					switch {
					case spread > 0:
						vals[i] = r.Int64N(spread) - spread/2
					case i%3 == 0: // spread 0: the extremes, heavy duplicates, and a few others
						vals[i] = math.MinInt64
					case i%3 == 1 && i%7 != 0:
						vals[i] = math.MaxInt64
					default:
						vals[i] = int64(r.Uint64())
					}
				}
				b := array.NewInt64Builder(mem)
				b.AppendValues(vals, nil)
				a := b.NewInt64Array()
				b.Release()
				less, err := keyComparator(a)
				if err != nil {
					t.Fatal(err)
				}
				wantLabels, wantM := labelsByComparator(less, n, want)
				got, m := labelsByOrderKeys(orderKeys(a), want)
				a.Release()
				if m != wantM || !slices.Equal(got, wantLabels) {
					t.Fatalf("n %d spread %d want %d: %d buckets, expected %d; labels equal %v", n, spread, want, m, wantM, slices.Equal(got, wantLabels))
				}
			}
		}
	}
}

// TestOrderKeys: for every integer key type, the uint64 images order as
// keyComparator orders the values; an array with nulls gets none.
func TestOrderKeys(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(13, 13))
	types := []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Timestamp_us,
	}
	for _, dt := range types {
		b := array.NewBuilder(mem, dt)
		for range 500 {
			x := r.Uint64()
			switch bb := b.(type) {
			case *array.Int8Builder:
				bb.Append(int8(x))
			case *array.Int16Builder:
				bb.Append(int16(x))
			case *array.Int32Builder:
				bb.Append(int32(x))
			case *array.Int64Builder:
				bb.Append(int64(x))
			case *array.Uint8Builder:
				bb.Append(uint8(x))
			case *array.Uint16Builder:
				bb.Append(uint16(x))
			case *array.Uint32Builder:
				bb.Append(uint32(x))
			case *array.Uint64Builder:
				bb.Append(x)
			case *array.Date32Builder:
				bb.Append(arrow.Date32(int32(x)))
			case *array.TimestampBuilder:
				bb.Append(arrow.Timestamp(int64(x)))
			}
		}
		a := b.NewArray()
		less, err := keyComparator(a)
		if err != nil {
			t.Fatal(err)
		}
		ok := orderKeys(a)
		if len(ok) != a.Len() {
			t.Fatalf("%s: %d keys for %d values", dt, len(ok), a.Len())
		}
		for range 2000 {
			i, j := r.IntN(a.Len()), r.IntN(a.Len())
			if got, want := cmp.Compare(ok[i], ok[j]), less(i, j); got != want {
				t.Fatalf("%s: rows %d, %d order %d by key, %d by value", dt, i, j, got, want)
			}
		}
		a.Release()
		b.AppendNull()
		withNull := b.NewArray()
		if orderKeys(withNull) != nil {
			t.Fatalf("%s: keys for an array with nulls", dt)
		}
		withNull.Release()
		b.Release()
	}
}

// BenchmarkLabelsByOrderKeys10M labels 10M scrambled int64 keys into 10
// destinations, the label step of a 10M-row recluster.
func BenchmarkLabelsByOrderKeys10M(b *testing.B) {
	r := rand.New(rand.NewPCG(14, 14))
	keys := make([]uint64, 10_000_000)
	for i := range keys {
		keys[i] = r.Uint64()
	}
	for b.Loop() {
		labelsByOrderKeys(keys, 10)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(keys)), "ns/row")
}
