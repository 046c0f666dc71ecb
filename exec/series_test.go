package exec_test

import (
	"math"
	"testing"

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
				return exec.NewGenerateSeriesExec("g", c.start, c.stop, c.step)
			},
			Want:    want,
			Ordered: true,
		})
	}
	if _, err := exec.NewGenerateSeriesExec("g", 1, 2, 0); err == nil {
		t.Fatal("step 0 accepted")
	}
	g, _ := exec.NewGenerateSeriesExec("g", 3, 1, -1)
	if o := g.Properties().Ordering; len(o) != 1 || !o[0].Descending || g.Schema().Field(0).Type.ID() != arrow.INT64 {
		t.Fatalf("ordering %v", o)
	}
}
