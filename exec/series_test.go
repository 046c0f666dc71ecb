package exec_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// seriesRef is generate_series computed the obvious way, in big steps
// guarded against overflow.
func seriesRef(start, stop, step int64) [][]any {
	var out [][]any
	for v := start; (step > 0 && v <= stop) || (step < 0 && v >= stop); v += step {
		out = append(out, []any{v})
		if (step > 0 && v > math.MaxInt64-step) || (step < 0 && v < math.MinInt64-step) {
			break
		}
	}
	return out
}

func TestGenerateSeries(t *testing.T) {
	for _, c := range []struct{ start, stop, step int64 }{
		{1, 10, 1}, {1, 10, 3}, {10, 1, -3}, {5, 5, 1}, {5, 4, 1}, {4, 5, -1}, {-3, 3, 2},
		{math.MaxInt64 - 5, math.MaxInt64, 2}, {math.MinInt64 + 3, math.MinInt64, -1},
		{math.MinInt64, math.MaxInt64, math.MaxInt64}, {0, 0, math.MinInt64},
	} {
		want := seriesRef(c.start, c.stop, c.step)
		exectest.Run(t, exectest.Case{
			Build: func([]exec.Node) (exec.Node, error) {
				return exec.NewGenerateSeriesExec("g", arrow.PrimitiveTypes.Int64, c.start, c.stop, c.step)
			},
			Want:    want,
			Ordered: true,
		})
	}
	if _, err := exec.NewGenerateSeriesExec("g", arrow.PrimitiveTypes.Int64, 1, 2, 0); err == nil {
		t.Fatal("step 0 accepted")
	}
	g, _ := exec.NewGenerateSeriesExec("g", arrow.PrimitiveTypes.Int64, 3, 1, -1)
	if o := g.Properties().Ordering; len(o) != 1 || !o[0].Descending || g.Schema().Field(0).Type.ID() != arrow.INT64 {
		t.Fatalf("ordering %v", o)
	}
}

// generate_series(integer, integer): an int32 column up to the int32
// limits; bounds past them are ErrOutOfRange, another type refused.
func TestGenerateSeriesInt32(t *testing.T) {
	for _, c := range []struct{ start, stop, step int64 }{
		{1, 10, 3}, {math.MaxInt32 - 5, math.MaxInt32, 2}, {math.MinInt32 + 3, math.MinInt32, -1},
		{math.MinInt32, math.MaxInt32, math.MaxInt32},
	} {
		var want [][]any
		for _, r := range seriesRef(c.start, c.stop, c.step) {
			want = append(want, []any{int32(r[0].(int64))})
		}
		exectest.Run(t, exectest.Case{
			Build: func([]exec.Node) (exec.Node, error) {
				return exec.NewGenerateSeriesExec("g", arrow.PrimitiveTypes.Int32, c.start, c.stop, c.step)
			},
			Want:    want,
			Ordered: true,
		})
	}
	if _, err := exec.NewGenerateSeriesExec("g", arrow.PrimitiveTypes.Int32, 1, math.MaxInt32+1, 1); !errors.Is(err, physexpr.ErrOutOfRange) {
		t.Fatalf("int32 series past the limit: %v", err)
	}
	if _, err := exec.NewGenerateSeriesExec("g", arrow.BinaryTypes.String, 1, 2, 1); !errors.Is(err, physexpr.ErrInvalidArgument) {
		t.Fatalf("string series: %v", err)
	}
}
