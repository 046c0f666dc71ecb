package exec_test

import (
	"context"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/window"
)

// TestFloatSumOfNegativeZero: sum(-0) is -0 as PostgreSQL's strict
// float8pl/float4pl with a NULL initial state gives (the first value is
// the state), in GROUP BY and over a window; it was 0 + -0 = 0.
func TestFloatSumOfNegativeZero(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "g", Type: arrow.PrimitiveTypes.Int64},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "r", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	}, nil)
	mem := exectest.Mem(t)
	gb, fb, rb := array.NewInt64Builder(mem), array.NewFloat64Builder(mem), array.NewFloat32Builder(mem)
	gb.AppendValues([]int64{1, 1}, nil)
	fb.Append(math.Copysign(0, -1))
	fb.AppendNull()
	rb.Append(float32(math.Copysign(0, -1)))
	rb.AppendNull()
	cols := []arrow.Array{gb.NewArray(), fb.NewArray(), rb.NewArray()}
	gb.Release()
	fb.Release()
	rb.Release()
	bs := []arrow.RecordBatch{array.NewRecordBatch(sc, cols, 2)}
	for _, c := range cols {
		c.Release()
	}
	v, _ := exec.NewValuesExec(sc, bs)
	defer v.Release()
	for _, b := range bs {
		b.Release()
	}
	agg, err := exec.NewHashAggregateExec(v, []int{0}, []exec.Aggregate{{Func: exec.AggSum, Args: []int{1}, Name: "s"}, {Func: exec.AggSum, Args: []int{2}, Name: "sr"}})
	if err != nil {
		t.Fatal(err)
	}
	srt, _ := exec.NewSortExec(v, window.Ordering(sc, []int{0}, nil))
	win, err := window.NewExec(srt, []int{0}, nil, []window.Expr{
		{Func: window.Sum, Args: []int{1}, Frame: window.DefaultFrame, Name: "s"},
		{Func: window.Sum, Args: []int{2}, Frame: window.DefaultFrame, Name: "sr"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []exec.Node{agg, win} {
		s, err := n.Execute(context.Background(), &exec.TaskContext{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Collect(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		w := int(out[0].NumCols())
		f := out[0].Column(w - 2).(*array.Float64).Value(0)
		r := out[0].Column(w - 1).(*array.Float32).Value(0)
		for _, b := range out {
			b.Release()
		}
		if !math.Signbit(f) || !math.Signbit(float64(r)) {
			t.Errorf("%s: sum(-0) = %v, %v; want -0", n.Name(), f, r)
		}
	}
}
