package physexpr_test

import (
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
)

// benchRowsLarge is the size of the "large batch stream" the expression
// benchmarks filter: the 9M rows the issue measured against.
const benchRowsLarge = 9_000_000

// runCount executes n and returns the number of rows it produced, releasing
// every batch as it comes (memory stays bounded by the batch size).
func runCount(b *testing.B, n exec.Node, mem memory.Allocator) int64 {
	b.Helper()
	s, err := n.Execute(b.Context(), &exec.TaskContext{Mem: mem, BatchSize: 8192})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var rows int64
	for {
		bt, err := s.Next(b.Context())
		if err != nil {
			if errors.Is(err, io.EOF) {
				return rows
			}
			b.Fatal(err)
		}
		rows += bt.NumRows()
		bt.Release()
	}
}

// andChain is k <> 1 AND k <> 2 AND ... as the planner builds it: a
// left-deep chain of binary ANDs.
func andChain(terms int) physexpr.Expr {
	col := physexpr.Col{Index: 0, Name: "k"}
	var acc physexpr.Expr
	for i := range terms {
		t := physexpr.Binary{Op: physexpr.OpNe, L: col, R: physexpr.Lit{Value: int64(-1 - i)}}
		if acc == nil {
			acc = t
		} else {
			acc = physexpr.Binary{Op: physexpr.OpAnd, L: acc, R: t}
		}
	}
	return acc
}

func benchAndChain(b *testing.B, terms int) {
	mem := memory.NewGoAllocator()
	for b.Loop() {
		src, _ := exec.NewGenerateSeriesExec("k", arrow.PrimitiveTypes.Int64, 1, 1<<20, 1)
		f, err := exec.NewFilterExec(src, andChain(terms))
		if err != nil {
			b.Fatal(err)
		}
		if got := runCount(b, f, mem); got != 1<<20 {
			b.Fatalf("got %d rows", got)
		}
	}
}

// BenchmarkAndChain1000 filters 1M rows by a 1,000-term AND chain.
func BenchmarkAndChain1000(b *testing.B) { benchAndChain(b, 1000) }

// BenchmarkAndChain2000 is the same with 2,000 terms: linear evaluation
// takes about twice as long, quadratic four times.
func BenchmarkAndChain2000(b *testing.B) { benchAndChain(b, 2000) }

// inValues returns n distinct values, half of them inside the series 1..rows.
func inValues(n, rows int) []int64 {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	seen := make(map[int64]bool, n)
	out := make([]int64, 0, n)
	for len(out) < n {
		v := int64(r.IntN(2*rows)) + 1
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func benchIn(b *testing.B, n int) {
	mem := memory.NewGoAllocator()
	vals := inValues(n, benchRowsLarge)
	list := make([]physexpr.Lit, n)
	for i, v := range vals {
		list[i] = physexpr.Lit{Value: v}
	}
	for b.Loop() {
		src, _ := exec.NewGenerateSeriesExec("k", arrow.PrimitiveTypes.Int64, 1, benchRowsLarge, 1)
		f, err := exec.NewFilterExec(src, physexpr.In{E: physexpr.Col{Index: 0, Name: "k"}, List: list})
		if err != nil {
			b.Fatal(err)
		}
		runCount(b, f, mem)
	}
}

// BenchmarkIn10K filters a 9M-row stream by k IN (10,000 constants).
func BenchmarkIn10K(b *testing.B) { benchIn(b, 10_000) }

// BenchmarkIn1M filters a 9M-row stream by k IN (1,000,000 constants).
func BenchmarkIn1M(b *testing.B) { benchIn(b, 1_000_000) }

// BenchmarkHashJoinIn1M is the yardstick for BenchmarkIn1M: the same 9M rows
// inner-joined with the same 1M values (the IN should be within 3x).
func BenchmarkHashJoinIn1M(b *testing.B) {
	mem := memory.NewGoAllocator()
	vals := inValues(1_000_000, benchRowsLarge)
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var batches []arrow.RecordBatch
	for off := 0; off < len(vals); off += 8192 {
		ib := array.NewInt64Builder(mem)
		ib.AppendValues(vals[off:min(off+8192, len(vals))], nil)
		a := ib.NewArray()
		batches = append(batches, array.NewRecordBatch(schema, []arrow.Array{a}, int64(a.Len())))
		a.Release()
		ib.Release()
	}
	build, _ := exec.NewValuesExec(schema, batches)
	for _, bt := range batches {
		bt.Release()
	}
	defer build.Release()
	for b.Loop() {
		src, _ := exec.NewGenerateSeriesExec("k", arrow.PrimitiveTypes.Int64, 1, benchRowsLarge, 1)
		j, err := exec.NewHashJoinExec(src, build, []int{0}, []int{0}, exec.JoinInner)
		if err != nil {
			b.Fatal(err)
		}
		runCount(b, j, mem)
	}
}

// benchLiteral compares a 3.3M-row string column (one 8192-row batch
// streamed 400 times) with a literal of size bytes and reports the peak
// bytes the filter held at once.
func benchLiteral(b *testing.B, size int) {
	src := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	sb := array.NewStringBuilder(src)
	for i := range 8192 {
		sb.Append(strings.Repeat("x", i%16))
	}
	a := sb.NewArray()
	sb.Release()
	bt := array.NewRecordBatch(schema, []arrow.Array{a}, 8192)
	a.Release()
	batches := make([]arrow.RecordBatch, 400)
	for i := range batches {
		batches[i] = bt
	}
	v, _ := exec.NewValuesExec(schema, batches)
	bt.Release()
	defer v.Release()
	lit := physexpr.Lit{Value: strings.Repeat("x", size)}
	var peak int64
	for b.Loop() {
		mem := &arrowtest.PeakAllocator{Allocator: memory.NewGoAllocator()}
		f, err := exec.NewFilterExec(v, physexpr.Binary{Op: physexpr.OpEq, L: physexpr.Col{Index: 0, Name: "s"}, R: lit})
		if err != nil {
			b.Fatal(err)
		}
		if got := runCount(b, f, mem); got != 0 {
			b.Fatalf("got %d rows", got)
		}
		peak = max(peak, mem.Peak())
	}
	b.ReportMetric(float64(peak), "peak-bytes")
}

// BenchmarkLiteral100KB: the peak memory of s = <100 KB literal>.
func BenchmarkLiteral100KB(b *testing.B) { benchLiteral(b, 100<<10) }

// BenchmarkLiteral1MB: the peak memory of s = <1 MB literal>.
func BenchmarkLiteral1MB(b *testing.B) { benchLiteral(b, 1<<20) }
