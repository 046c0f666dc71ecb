package exec_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// arraySource is a ListSource of arrays held in memory; after the arrays
// it returns fail (nil: io.EOF).
type arraySource struct {
	typ    arrow.DataType
	arrays []arrow.Array
	fail   error
	opened int
}

func (s *arraySource) ElemType() arrow.DataType { return s.typ }
func (s *arraySource) Open(context.Context) (exec.ListReader, error) {
	s.opened++
	return &arrayReader{s: s}, nil
}

type arrayReader struct {
	s      *arraySource
	i      int
	closed bool
}

func (r *arrayReader) Next(context.Context) (arrow.Array, error) {
	if r.i == len(r.s.arrays) {
		if r.s.fail != nil {
			return nil, r.s.fail
		}
		return nil, io.EOF
	}
	a := r.s.arrays[r.i]
	r.i++
	a.Retain()
	return a, nil
}

func (r *arrayReader) Close() error { r.closed = true; return nil }

func int64Array(mem memory.Allocator, vals []int64, valid []bool) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

// TestUnnestListSource: a streamed list parameter is unnested array by
// array, in batches of at most BatchSize rows, its ordinals counted across
// arrays (an empty array and NULLs included), and every buffer released.
func TestUnnestListSource(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src := &arraySource{typ: arrow.PrimitiveTypes.Int64, arrays: []arrow.Array{
		int64Array(mem, []int64{10, 11, 12, 13, 14}, nil),
		int64Array(mem, nil, nil),
		int64Array(mem, []int64{20, 0, 22, 23}, []bool{true, false, true, true}),
	}}
	defer func() {
		for _, a := range src.arrays {
			a.Release()
		}
	}()
	u, err := exec.NewUnnestParamExec(1, arrow.PrimitiveTypes.Int64)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := u.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 3, Params: map[int]any{1: src}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Collect(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range out {
		if b.NumRows() > 3 {
			t.Errorf("batch of %d rows, BatchSize 3", b.NumRows())
		}
	}
	rows, err := exectest.Rows(out...)
	for _, b := range out {
		b.Release()
	}
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{int64(10), int64(1)}, {int64(11), int64(2)}, {int64(12), int64(3)}, {int64(13), int64(4)}, {int64(14), int64(5)},
		{int64(20), int64(6)}, {nil, int64(7)}, {int64(22), int64(8)}, {int64(23), int64(9)}}
	if len(rows) != len(want) {
		t.Fatalf("got %d rows %v, want %v", len(rows), rows, want)
	}
	for i := range want {
		for j := range want[i] {
			if rows[i][j] != want[i][j] {
				t.Fatalf("row %d: got %v, want %v", i, rows[i], want[i])
			}
		}
	}
	if src.opened != 1 {
		t.Fatalf("opened %d times", src.opened)
	}
}

// TestUnnestListSourceFails: a source that fails midway (a cancelled
// upload) ends the stream with its error, not with a shorter list, and a
// source of the wrong type is refused.
func TestUnnestListSourceFails(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cut := errors.New("upload cancelled")
	src := &arraySource{typ: arrow.PrimitiveTypes.Int64, arrays: []arrow.Array{int64Array(mem, []int64{1, 2}, nil)}, fail: cut}
	defer src.arrays[0].Release()
	u, _ := exec.NewUnnestParamExec(1, arrow.PrimitiveTypes.Int64)
	ctx := context.Background()
	s, err := u.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 8, Params: map[int]any{1: src}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.Release()
	if _, err := s.Next(ctx); !errors.Is(err, cut) {
		t.Fatalf("after the cut: %v, want the source's error", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	text, _ := exec.NewUnnestParamExec(1, arrow.BinaryTypes.String)
	if _, err := text.Execute(ctx, &exec.TaskContext{Mem: mem, Params: map[int]any{1: src}}); !errors.Is(err, physexpr.ErrSchema) {
		t.Fatalf("a stream of int64 for a text unnest: %v", err)
	}
}
