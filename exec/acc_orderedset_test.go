package exec_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// TestOrderedSetAggregates: percentile_cont interpolates at f * (n - 1),
// percentile_disc takes the value at ceil(f * n) (the first for f = 0),
// mode the most frequent value, the first in the order among ties (DESC
// reverses it); NULL values are skipped, NaN sorts above every number,
// a NULL fraction gives NULL and one outside [0, 1] raises (PostgreSQL's
// orderedsetaggs.c). Batches of one row: the values of a group come from
// many batches.
func TestOrderedSetAggregates(t *testing.T) {
	mem := exectest.Mem(t)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "g", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	rows := [][]any{
		{int64(1), 1.0, 0.25, "b"}, {int64(1), 4.0, 0.25, "a"}, {int64(1), nil, 0.25, nil}, {int64(1), 2.0, 0.25, "b"}, {int64(1), 3.0, 0.25, "a"},
		{int64(2), math.NaN(), nil, "z"}, {int64(2), 5.0, nil, "y"},
		{int64(3), nil, 0.5, nil},
	}
	run := func(aggs []exec.Aggregate, rows [][]any) ([][]any, error) {
		var bs []arrow.RecordBatch
		for _, r := range rows {
			b, err := exectest.Batch(mem, sc, [][]any{r})
			if err != nil {
				t.Fatal(err)
			}
			bs = append(bs, b)
		}
		v, _ := exec.NewValuesExec(sc, bs)
		defer v.Release()
		for _, b := range bs {
			b.Release()
		}
		agg, err := exec.NewHashAggregateExec(v, []int{0}, aggs)
		if err != nil {
			t.Fatal(err)
		}
		s, err := agg.Execute(context.Background(), &exec.TaskContext{Mem: mem})
		if err != nil {
			return nil, err
		}
		out, err := exec.Collect(context.Background(), s)
		if err != nil {
			return nil, err
		}
		defer func() {
			for _, b := range out {
				b.Release()
			}
		}()
		return exectest.Rows(out...)
	}
	got, err := run([]exec.Aggregate{
		{Func: exec.AggPercentileCont, Args: []int{2, 1}, Name: "cont"},
		{Func: exec.AggPercentileCont, Args: []int{2, 1}, Name: "cont_desc", Desc: true},
		{Func: exec.AggPercentileDisc, Args: []int{2, 3}, Name: "disc"},
		{Func: exec.AggMode, Args: []int{3}, Name: "mode"},
		{Func: exec.AggMode, Args: []int{3}, Name: "mode_desc", Desc: true},
	}, rows)
	if err != nil {
		t.Fatal(err)
	}
	// Group 1: x 1 2 3 4 (f 0.25: position 0.75, 1.75; descending 4 3 2 1
	// gives 3.25), s a a b b (disc: ceil(0.25 * 4) = 1st, a; mode tie a
	// then b). Group 2: a NULL fraction. Group 3: no value.
	want := [][]any{
		{int64(1), 1.75, 3.25, "a", "a", "b"},
		{int64(2), nil, nil, nil, "y", "z"},
		{int64(3), nil, nil, nil, nil, nil},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("row %d column %d: got %v, want %v (all %v)", i, j, got[i][j], want[i][j], got)
			}
		}
	}
	// NaN above every number: percentile_disc(1) of 5 and NaN is NaN.
	got, err = run([]exec.Aggregate{{Func: exec.AggPercentileDisc, Args: []int{2, 1}, Name: "disc"}}, [][]any{{int64(2), math.NaN(), 1.0, nil}, {int64(2), 5.0, 1.0, nil}})
	if err != nil || len(got) != 1 || !math.IsNaN(got[0][1].(float64)) {
		t.Fatalf("got %v, %v; want NaN", got, err)
	}
	_, err = run([]exec.Aggregate{{Func: exec.AggPercentileCont, Args: []int{2, 1}, Name: "cont"}}, [][]any{{int64(1), 1.0, 1.5, nil}})
	if !errors.Is(err, errkind.OutOfRange) {
		t.Fatalf("fraction 1.5: got %v, want an out-of-range error", err)
	}
}
