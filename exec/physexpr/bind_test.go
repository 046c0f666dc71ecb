package physexpr_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// countingExpr is an Expr of another package (it does not bind itself):
// it counts how often the evaluator asks for its type and its values.
type countingExpr struct {
	types, evals *atomic.Int64
}

func (c countingExpr) String() string { return "counted" }
func (c countingExpr) DataType(*arrow.Schema) (arrow.DataType, error) {
	c.types.Add(1)
	return arrow.FixedWidthTypes.Boolean, nil
}
func (c countingExpr) Evaluate(_ context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	c.evals.Add(1)
	bb := array.NewBooleanBuilder(mem)
	defer bb.Release()
	for range b.NumRows() {
		bb.Append(true)
	}
	return bb.NewArray(), nil
}

// TestBindIsLinear: a FilterExec derives its predicate's types once, at
// construction, and evaluates every operand once per batch, so an n-term
// AND costs n per batch. Before binding, each level of the left-deep chain
// re-derived the types of its whole subtree on every batch (n^2/2 type
// walks per batch: 7.6 s for 1,000 terms).
func TestBindIsLinear(t *testing.T) {
	const terms, batches = 400, 3
	var types, evals atomic.Int64
	leaf := countingExpr{&types, &evals}
	var pred physexpr.Expr = leaf
	for range terms - 1 {
		pred = physexpr.Binary{Op: physexpr.OpAnd, L: pred, R: leaf}
	}
	mem := exectest.Mem(t)
	var in []arrow.RecordBatch
	for range batches {
		b, _ := exectest.Batch(mem, arrowtest.KVSchema, [][]any{{int64(1), "a"}, {int64(2), "b"}})
		in = append(in, b)
	}
	v, _ := exec.NewValuesExec(arrowtest.KVSchema, in)
	for _, b := range in {
		b.Release()
	}
	defer v.Release()
	f, err := exec.NewFilterExec(v, pred)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := f.Execute(t.Context(), &exec.TaskContext{Mem: mem})
	out, err := exec.Collect(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, o := range out {
		rows += int(o.NumRows())
		o.Release()
	}
	if rows != 2*batches {
		t.Fatalf("got %d rows", rows)
	}
	if types.Load() > terms || evals.Load() != terms*batches {
		t.Fatalf("%d-term AND over %d batches: %d type derivations, %d evaluations; want <= %d and %d",
			terms, batches, types.Load(), evals.Load(), terms, terms*batches)
	}
}

// TestLiteralStaysScalar: comparing a column with a long string literal
// never copies the literal once per row (it used to be broadcast into a
// column of batch size copies: 3 GB for a 100 KB literal over 9M rows, a
// panic at 1 MB). The peak of the operator's allocator stays below one
// copy of the literal.
func TestLiteralStaysScalar(t *testing.T) {
	const size, rows = 256 << 10, 2048
	inner := exectest.Mem(t)
	mem := &arrowtest.PeakAllocator{Allocator: inner}
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	data := make([][]any, rows)
	for i := range data {
		data[i] = []any{strings.Repeat("x", i%7)}
	}
	data[5] = []any{"y"} // > the literal
	b, _ := exectest.Batch(memory.NewGoAllocator(), schema, data)
	v, _ := exec.NewValuesExec(schema, []arrow.RecordBatch{b, b, b})
	b.Release()
	defer v.Release()
	lit := physexpr.Lit{Value: strings.Repeat("x", size)}
	f, err := exec.NewFilterExec(v, physexpr.Binary{Op: physexpr.OpLt, L: physexpr.Col{Index: 0, Name: "s"}, R: lit})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := f.Execute(t.Context(), &exec.TaskContext{Mem: mem, BatchSize: rows})
	out, err := exec.Collect(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range out {
		n += int(o.NumRows())
	}
	for _, o := range out {
		o.Release()
	}
	if n != 3*(rows-1) { // every row but "y"
		t.Fatalf("got %d rows, want %d", n, 3*(rows-1))
	}
	// The output is a few KB; evaluation must not add a copy of the literal.
	if p := mem.Peak(); p >= size {
		t.Fatalf("peak %d bytes for a %d-byte literal over %d rows", p, size, rows)
	}
}

// TestBroadcastTooLarge: a projected literal whose column could not be
// represented (Arrow strings have 32-bit offsets) is a typed error, not a
// panic or an attempt to allocate it.
func TestBroadcastTooLarge(t *testing.T) {
	mem := exectest.Mem(t)
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	src, _ := exec.NewGenerateSeriesExec("k", arrow.PrimitiveTypes.Int64, 1, 4096, 1)
	p, err := exec.NewProjectExec(src, []physexpr.Expr{physexpr.Lit{Value: strings.Repeat("x", 1<<20)}}, []string{"big"})
	if err != nil {
		t.Fatal(err)
	}
	_ = schema
	s, _ := p.Execute(t.Context(), &exec.TaskContext{Mem: mem, BatchSize: 4096})
	defer s.Close()
	if _, err := s.Next(t.Context()); !errors.Is(err, physexpr.ErrOutOfRange) {
		t.Fatalf("got %v", err)
	}
}
