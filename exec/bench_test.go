package exec_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// failNode's stream fails on first Next; checks error propagation through operators.
type failNode struct{ exec.Node }

var errBoom = errors.New("boom")

type failStream struct{ exec.Stream }

func (failStream) Next(context.Context) (arrow.RecordBatch, error) { return nil, errBoom }
func (failStream) Close() error                                    { return nil }

func (f failNode) Execute(ctx context.Context, tc *exec.TaskContext) (exec.Stream, error) {
	return failStream{}, nil
}

func TestErrorPropagation(t *testing.T) {
	mem := exectest.Mem(t)
	v, _ := exec.NewValuesExec(arrowtest.KVSchema, nil)
	f := failNode{v}
	srt, _ := exec.NewSortExec(f, []exec.SortKey{{Column: 0}})
	flt, _ := exec.NewFilterExec(f, physexpr.Unary{Op: physexpr.OpIsNull, E: colK})
	prj, _ := exec.NewProjectExec(f, []physexpr.Expr{colK}, []string{"k"})
	un, _ := exec.NewUnionExec(v, f)
	hjL, _ := exec.NewHashJoinExec(f, v, []int{0}, []int{0}, exec.JoinInner)
	// A join with an empty left input runs its right input only when it
	// must emit the unmatched right rows (RIGHT, FULL): the build is lazy.
	hjR, _ := exec.NewHashJoinExec(v, f, []int{0}, []int{0}, exec.JoinRight)
	for _, n := range []exec.Node{srt, flt, prj, un, hjL, hjR, exec.NewLimitExec(f, 0, 3)} {
		s, err := n.Execute(t.Context(), &exec.TaskContext{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := exec.Collect(t.Context(), s); !errors.Is(err, errBoom) {
			t.Fatalf("%s: got %v", n.Name(), err)
		}
		s.Close()
	}
}

func benchRows(n int, r *rand.Rand) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(r.IntN(n)), "x"}
	}
	return rows
}

func BenchmarkHashJoin(b *testing.B) {
	mem := exectest.Mem(b)
	r := rand.New(rand.NewPCG(1, 1))
	lb, _ := exectest.Batch(mem, arrowtest.KVSchema, benchRows(100_000, r))
	rb, _ := exectest.Batch(mem, arrowtest.KVSchema, benchRows(100_000, r))
	l, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{lb})
	rr, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{rb})
	lb.Release()
	rb.Release()
	defer l.Release()
	defer rr.Release()
	j, _ := exec.NewHashJoinExec(l, rr, []int{0}, []int{0}, exec.JoinInner)
	runDrained(b, mem, j)
}

func BenchmarkSort(b *testing.B) {
	mem := exectest.Mem(b)
	r := rand.New(rand.NewPCG(2, 2))
	bt, _ := exectest.Batch(mem, arrowtest.KVSchema, benchRows(100_000, r))
	v, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{bt})
	bt.Release()
	defer v.Release()
	s0, _ := exec.NewSortExec(v, []exec.SortKey{{Column: 0}})
	runDrained(b, mem, s0)
}

// BenchmarkSortWindowKeys sorts 1M rows by two integer keys as a window
// with PARTITION BY p ORDER BY t does: p of 1000 values, t distinct, the
// rows interleaved across partitions (bench/cmd/windowbench's table).
func BenchmarkSortWindowKeys(b *testing.B) {
	mem := exectest.Mem(b)
	schema := arrow.NewSchema([]arrow.Field{{Name: "p", Type: arrow.PrimitiveTypes.Int32}, {Name: "t", Type: arrow.PrimitiveTypes.Int64}}, nil)
	const n = 1_000_000
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int32(i % 1000), int64(i)}
	}
	bt, _ := exectest.Batch(mem, schema, rows)
	v, _ := exec.NewValuesExec(schema, []arrow.RecordBatch{bt})
	bt.Release()
	defer v.Release()
	s0, _ := exec.NewSortExec(v, []exec.SortKey{{Column: 0}, {Column: 1}})
	runDrained(b, mem, s0)
}

// runDrained times n's whole execution per iteration, its output
// collected and released, at batches of 8192.
func runDrained(b *testing.B, mem memory.Allocator, n exec.Node) {
	b.ResetTimer()
	for b.Loop() {
		s, _ := n.Execute(b.Context(), &exec.TaskContext{Mem: mem, BatchSize: 8192})
		out, err := exec.Collect(b.Context(), s)
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range out {
			o.Release()
		}
	}
}
