package plan

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
)

func uint64Batch(mem memory.Allocator, vals []uint64, valid []bool) arrow.RecordBatch {
	b := array.NewUint64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	a := b.NewArray()
	defer a.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "_rowid", Type: arrow.PrimitiveTypes.Uint64, Nullable: true}}, nil)
	return array.NewRecordBatch(sc, []arrow.Array{a}, int64(len(vals)))
}

// TestAsInt64Checked: a row id is bigint in SQL; one that does not fit is
// an out-of-range error (never a negative number), and a NULL slot is not
// looked at.
func TestAsInt64Checked(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	e := asInt64{physexpr.Col{Index: 0, Name: "_rowid"}}

	ok := uint64Batch(mem, []uint64{0, 7, math.MaxInt64, 1 << 63}, []bool{true, true, true, false})
	defer ok.Release()
	a, err := e.Evaluate(ctx, mem, ok)
	if err != nil {
		t.Fatal(err)
	}
	got := a.(*array.Int64)
	if got.Value(0) != 0 || got.Value(1) != 7 || got.Value(2) != math.MaxInt64 || got.IsValid(3) {
		t.Fatalf("got %v", got)
	}
	a.Release()

	for _, valid := range [][]bool{nil, {true, true}} {
		bad := uint64Batch(mem, []uint64{1, 1 << 63}, valid)
		_, err = e.Evaluate(ctx, mem, bad)
		bad.Release()
		if !errors.Is(err, ErrOutOfRange) || !errors.Is(err, errkind.OutOfRange) {
			t.Fatalf("valid=%v: %v, want out of range", valid, err)
		}
	}
}

// TestIntToFloat: bigint to double precision as Postgres' i8tod, nearest
// double (ties to even) at any magnitude.
func TestIntToFloat(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{1<<53 + 1, 1<<53 + 3, math.MinInt64, math.MaxInt64, -3}, nil)
	ib.AppendNull()
	col := ib.NewArray()
	ib.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	b := array.NewRecordBatch(sc, []arrow.Array{col}, int64(col.Len()))
	col.Release()
	defer b.Release()
	a, err := physexpr.Cast{E: physexpr.Col{Index: 0, Name: "k"}, To: arrow.PrimitiveTypes.Float64}.Evaluate(context.Background(), mem, b)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	f := a.(*array.Float64)
	want := []float64{1 << 53, 1<<53 + 4, -9223372036854775808, 9223372036854775808, -3}
	for i, w := range want {
		if f.Value(i) != w {
			t.Fatalf("%d: %v, want %v", i, f.Value(i), w)
		}
	}
	if f.IsValid(5) {
		t.Fatal("NULL became a value")
	}
}

// TestBigints: every Go integer list (or one integer) a caller binds for
// an unnested id list becomes the same []int64; a uint64 above MaxInt64 is
// not a bigint (PostgreSQL: "value ... is out of range for type bigint"),
// an out-of-range error naming the element, never a wrapped negative id.
func TestBigints(t *testing.T) {
	want := []int64{0, 5, 70000}
	for _, v := range []any{[]int64{0, 5, 70000}, []int{0, 5, 70000}, []int32{0, 5, 70000}, []uint32{0, 5, 70000},
		[]uint64{0, 5, 70000}} {
		got, err := unnestList(1, v, arrow.PrimitiveTypes.Int64)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		if g, ok := got.([]int64); !ok || len(g) != 3 || g[0] != want[0] || g[1] != want[1] || g[2] != want[2] {
			t.Fatalf("%T: %v", v, got)
		}
	}
	for _, v := range []any{int64(7), int(7), int32(7), uint64(7)} {
		got, err := unnestList(1, v, arrow.PrimitiveTypes.Int64)
		if g, ok := got.([]int64); err != nil || !ok || len(g) != 1 || g[0] != 7 {
			t.Fatalf("%T: %v %v", v, got, err)
		}
	}
	five := uint64(5)
	got, err := unnestList(1, []*uint64{nil, &five}, arrow.PrimitiveTypes.Int64)
	if g, ok := got.([]*int64); err != nil || !ok || g[0] != nil || *g[1] != 5 {
		t.Fatalf("[]*uint64: %v %v", got, err)
	}
	big := uint64(math.MaxInt64) + 1
	for _, v := range []any{[]uint64{1, big}, []*uint64{nil, &big}, big} {
		_, err := unnestList(3, v, arrow.PrimitiveTypes.Int64)
		if !errors.Is(err, ErrOutOfRange) || !errors.Is(err, errkind.OutOfRange) {
			t.Fatalf("%T: %v, want out of range", v, err)
		}
		if _, scalar := v.(uint64); !scalar && !strings.Contains(err.Error(), "$3 element 2 = 9223372036854775808") {
			t.Fatalf("%T: %v", v, err)
		}
	}
	// A scalar use of the same value: the same conversion, the same error.
	if _, err := paramScalar(2, big, arrow.PrimitiveTypes.Int64); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("scalar: %v", err)
	}
	if _, err := unnestList(1, []float64{1}, arrow.PrimitiveTypes.Int64); !errors.Is(err, ErrParamType) {
		t.Fatalf("[]float64: %v", err)
	}
}
