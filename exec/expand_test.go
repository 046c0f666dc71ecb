package exec_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"
)

// expandInput is (k, start, stop, step) rows: int64 arguments, NULLs allowed.
var expandInput = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// expandRef is the expansion computed row by row with seriesRef: each
// input row, then the series value and its ordinal; a NULL argument or an
// empty series gives no row, or one NULL-extended row when left.
func expandRef(rows [][]any, ord, left bool) [][]any {
	var out [][]any
	for _, r := range rows {
		var series [][]any
		if r[1] != nil && r[2] != nil && r[3] != nil {
			series = seriesRef(r[1].(int64), r[2].(int64), r[3].(int64))
		}
		if len(series) == 0 && left {
			row := append(append([]any{}, r...), nil)
			if ord {
				row = append(row, nil)
			}
			out = append(out, row)
		}
		for i, v := range series {
			row := append(append([]any{}, r...), v[0])
			if ord {
				row = append(row, int64(i+1))
			}
			out = append(out, row)
		}
	}
	return out
}

func TestExpand(t *testing.T) {
	rows := [][]any{
		{int64(1), int64(1), int64(3), int64(1)},
		{int64(2), int64(5), int64(1), int64(-2)},
		{int64(3), int64(4), int64(3), int64(1)}, // empty
		{int64(4), nil, int64(3), int64(1)},      // NULL start: no rows
		{int64(5), int64(0), int64(20), int64(7)},
		{int64(6), int64(2), int64(2), int64(1)},
	}
	for _, ord := range []bool{false, true} {
		for _, left := range []bool{false, true} {
			ordName := ""
			if ord {
				ordName = "ordinality"
			}
			exectest.Run(t, exectest.Case{
				Inputs: []exectest.Input{{Schema: expandInput, Rows: rows}},
				Build: func(in []exec.Node) (exec.Node, error) {
					return exec.NewExpandExec(in[0], exec.SeriesArgs{Start: 1, Stop: 2, Step: 3}, "g", ordName, left)
				},
				Want:    expandRef(rows, ord, left),
				Ordered: true,
			})
		}
	}
}

// A zero step raises PostgreSQL's error, typed, when the row is reached.
func TestExpandZeroStep(t *testing.T) {
	mem := arrowtest.Mem(t)
	rows := [][]any{{int64(1), int64(1), int64(3), int64(1)}, {int64(2), int64(1), int64(3), int64(0)}}
	_, err := drainExpand(t, mem, rows, 4)
	if !errors.Is(err, physexpr.ErrInvalidArgument) || !strings.Contains(err.Error(), "step size cannot equal zero") {
		t.Fatalf("zero step: %v", err)
	}
	if _, err := exec.NewExpandExec(valuesOf(t, mem, nil), exec.SeriesArgs{Start: 0, Stop: 1, Step: 9}, "g", "", false); err == nil {
		t.Fatal("argument column out of range accepted")
	}
}

// One input row expanding to a long series streams: every batch is at
// most the batch size, and the memory outstanding at once stays at a few
// batches, not the series (here 2M rows, 16 MB if materialized).
func TestExpandLongSeriesStreams(t *testing.T) {
	peak := &arrowtest.PeakAllocator{Allocator: arrowtest.Mem(t)}
	const n = 2_000_000
	rows := [][]any{{int64(1), int64(1), int64(n), int64(1)}}
	total, err := drainExpand(t, peak, rows, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if total != n {
		t.Fatalf("rows %d, want %d", total, n)
	}
	if p := peak.Peak(); p > 256<<10 {
		t.Fatalf("peak %d bytes for 1024-row batches", p)
	}
}

func valuesOf(t *testing.T, mem memory.Allocator, rows [][]any) exec.Node {
	t.Helper()
	var batches []arrow.RecordBatch
	if len(rows) > 0 {
		b, err := arrowtest.Batch(mem, expandInput, rows)
		if err != nil {
			t.Fatal(err)
		}
		batches = append(batches, b)
	}
	v, err := exec.NewValuesExec(expandInput, batches)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		b.Release() // the ValuesExec holds its own reference
	}
	t.Cleanup(v.Release) // before the allocator's check (cleanups run last first)
	return v
}

// drainExpand runs an expand of rows, checking each batch's size, and
// returns the rows it emitted.
func drainExpand(t *testing.T, mem memory.Allocator, rows [][]any, batch int) (int64, error) {
	t.Helper()
	e, err := exec.NewExpandExec(valuesOf(t, mem, rows), exec.SeriesArgs{Start: 1, Stop: 2, Step: 3}, "g", "ordinality", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := e.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: batch})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var total int64
	for {
		b, err := s.Next(ctx)
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
		if b.NumRows() > int64(batch) {
			t.Errorf("batch of %d rows, batch size %d", b.NumRows(), batch)
		}
		total += b.NumRows()
		b.Release()
	}
}

// EXPLAIN ANALYZE shows the expand's own counters: the input rows it read
// and how many of them had an empty series (NULL argument, start past stop).
func TestExpandMetrics(t *testing.T) {
	mem := arrowtest.Mem(t)
	rows := [][]any{
		{int64(1), int64(1), int64(3), int64(1)},
		{int64(2), nil, int64(3), int64(1)},
		{int64(3), int64(4), int64(3), int64(1)},
	}
	e, err := exec.NewExpandExec(valuesOf(t, mem, rows), exec.SeriesArgs{Start: 1, Stop: 2, Step: 3}, "g", "", true)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := e.Execute(ctx, &exec.TaskContext{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Collect(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range out {
		b.Release()
	}
	m := e.Metrics().Snapshot()
	if m["input_rows"] != 3 || m["empty_series"] != 2 || m["output_rows"] != 5 {
		t.Fatalf("metrics %v", m)
	}
	if x := exec.Explain(e, true); !strings.Contains(x, "empty_series=2") {
		t.Fatalf("EXPLAIN ANALYZE:\n%s", x)
	}
}
