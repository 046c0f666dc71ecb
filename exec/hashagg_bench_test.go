package exec_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
)

// BenchmarkHashAggregate: count(*) and sum(x) grouped by an int64 key with
// 1000 (or 1M) distinct values over 1M rows in 8192-row batches; ns/op is
// per input row.
func BenchmarkHashAggregate(b *testing.B) {
	const rows, batch = 1 << 20, 8192
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "x", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	for _, groups := range []int{1000, 1 << 20} {
		b.Run(fmt.Sprintf("groups=%d", groups), func(b *testing.B) {
			mem := memory.NewGoAllocator()
			var batches []arrow.RecordBatch
			for off := 0; off < rows; off += batch {
				kb, xb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
				for i := off; i < off+batch; i++ {
					kb.Append(int64((i * 7919) % groups))
					xb.Append(int64(i))
				}
				k, x := kb.NewArray(), xb.NewArray()
				batches = append(batches, array.NewRecordBatch(schema, []arrow.Array{k, x}, batch))
			}
			v, err := exec.NewValuesExec(schema, batches)
			if err != nil {
				b.Fatal(err)
			}
			agg, err := exec.NewHashAggregateExec(v, []int{0}, []exec.Aggregate{
				{Func: exec.AggCountStar, Name: "n"}, {Func: exec.AggSum, Args: []int{1}, Name: "s"},
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				st, err := agg.Execute(b.Context(), &exec.TaskContext{Mem: mem})
				if err != nil {
					b.Fatal(err)
				}
				out, err := exec.Collect(b.Context(), st)
				if err != nil {
					b.Fatal(err)
				}
				for _, o := range out {
					o.Release()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
		})
	}
}

// BenchmarkHashAggregateQ1Keys: count(*) grouped by two 1-byte string
// columns with 4 distinct pairs (TPC-H Q1's l_returnflag, l_linestatus)
// over 1M rows in 8192-row batches; ns/row is per input row.
func BenchmarkHashAggregateQ1Keys(b *testing.B) {
	const rows, batch = 1 << 20, 8192
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "rf", Type: arrow.BinaryTypes.String},
		{Name: "ls", Type: arrow.BinaryTypes.String},
	}, nil)
	mem := memory.NewGoAllocator()
	var batches []arrow.RecordBatch
	pairs := [][2]string{{"A", "F"}, {"N", "F"}, {"N", "O"}, {"R", "F"}}
	for off := 0; off < rows; off += batch {
		rb, lb := array.NewStringBuilder(mem), array.NewStringBuilder(mem)
		for i := off; i < off+batch; i++ {
			p := pairs[(i*7919>>3)%4]
			rb.Append(p[0])
			lb.Append(p[1])
		}
		r, l := rb.NewArray(), lb.NewArray()
		batches = append(batches, array.NewRecordBatch(schema, []arrow.Array{r, l}, batch))
	}
	v, err := exec.NewValuesExec(schema, batches)
	if err != nil {
		b.Fatal(err)
	}
	agg, err := exec.NewHashAggregateExec(v, []int{0, 1}, []exec.Aggregate{{Func: exec.AggCountStar, Name: "n"}})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		st, err := agg.Execute(b.Context(), &exec.TaskContext{Mem: mem})
		if err != nil {
			b.Fatal(err)
		}
		out, err := exec.Collect(b.Context(), st)
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range out {
			o.Release()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
}
