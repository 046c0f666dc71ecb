package exec_test

import (
	"context"
	"errors"
	"io"
	"math"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"
)

// FuzzExpand decodes input rows (k, start, stop, step) from the bytes —
// small arguments, NULLs, zero steps and arguments next to int64's ends,
// where the series must stop without wrapping — and checks the expand,
// every combination of WITH ORDINALITY and LEFT at the batch size the
// first byte picks, against the row-by-row model (expandRef): the same
// rows in the same order, or PostgreSQL's zero-step error exactly when a
// row with no NULL argument has step 0. No Arrow memory is left behind.
func FuzzExpand(f *testing.F) {
	f.Add([]byte{3, 1, 2, 9, 1, 5, 1, 12, 3})
	f.Add([]byte{0, 9, 9, 9, 2, 0, 1, 11, 11, 0})
	f.Add([]byte{7, 13, 14, 15, 14, 13, 12, 2, 2, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 || len(data) > 80 {
			return
		}
		batch := int(data[0]%9) + 1
		arg := func(b byte) any {
			switch v := b % 16; v {
			case 9:
				return nil
			case 10:
				return int64(0)
			case 11:
				return int64(math.MinInt64)
			case 12:
				return int64(math.MaxInt64)
			case 13:
				return int64(math.MaxInt64 - 2)
			case 14:
				return int64(math.MinInt64 + 1)
			case 15:
				return int64(-3)
			default:
				return int64(v) - 2 // -2..6
			}
		}
		var rows [][]any
		zeroStep := false
		for i := 1; i+2 < len(data); i += 3 {
			r := []any{int64(len(rows)), arg(data[i]), arg(data[i+1]), arg(data[i+2])}
			if r[1] != nil && r[2] != nil && r[3] == int64(0) {
				zeroStep = true
			}
			if s, ok := r[3].(int64); ok && r[1] != nil && r[2] != nil && s != 0 {
				// The model materializes the series: keep it short
				// (a full-range step of 1 would be 2^64 rows).
				if seriesLen(r[1].(int64), r[2].(int64), s) > 64 {
					r[3] = nil
				}
			}
			rows = append(rows, r)
		}
		for _, ord := range []bool{false, true} {
			for _, left := range []bool{false, true} {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				got, err := runExpand(t, mem, rows, batch, ord, left)
				mem.AssertSize(t, 0)
				if zeroStep {
					if !errors.Is(err, physexpr.ErrInvalidArgument) {
						t.Fatalf("rows %v: a zero step gave %v", rows, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("rows %v: %v", rows, err)
				}
				if want := expandRef(rows, ord, left); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
					t.Fatalf("rows %v batch %d ord %v left %v:\n got %v\nwant %v", rows, batch, ord, left, got, want)
				}
			}
		}
	})
}

// runExpand runs an expand of rows (arguments columns 1, 2, 3) and
// returns its rows as values; batches over the batch size fail the test.
func runExpand(t *testing.T, mem memory.Allocator, rows [][]any, batch int, ord, left bool) ([][]any, error) {
	t.Helper()
	b, err := arrowtest.Batch(mem, expandInput, rows)
	if err != nil {
		t.Fatal(err)
	}
	v, err := exec.NewValuesExec(expandInput, []arrow.RecordBatch{b})
	b.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	ordName := ""
	if ord {
		ordName = "ordinality"
	}
	e, err := exec.NewExpandExec(v, exec.SeriesArgs{Start: 1, Stop: 2, Step: 3}, "g", ordName, left)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := e.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: batch})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out [][]any
	for {
		rb, err := s.Next(ctx)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if rb.NumRows() > int64(batch) {
			t.Errorf("batch of %d rows, batch size %d", rb.NumRows(), batch)
		}
		rs, err := arrowtest.Rows(rb)
		rb.Release()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rs...)
	}
}

// seriesLen is the number of values of generate_series(start, stop, step),
// step not 0, computed without walking it.
func seriesLen(start, stop, step int64) uint64 {
	var q uint64
	switch {
	case step > 0 && start <= stop:
		q = (uint64(stop) - uint64(start)) / uint64(step)
	case step < 0 && start >= stop:
		q = (uint64(start) - uint64(stop)) / (uint64(-(step + 1)) + 1)
	default:
		return 0
	}
	return max(q, q+1) // 2^64 values (MinInt64 to MaxInt64 by 1) saturate
}
