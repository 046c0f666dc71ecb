package exec

import (
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkDecimalSum is ns per value of sum and avg of a decimal(15,2)
// column (Q1's sum(l_extendedprice), avg(l_discount)) over 8192-row
// batches in 4 groups (Q1's returnflag × linestatus).
func BenchmarkDecimalSum(b *testing.B) {
	const n = 8192
	mem := memory.NewGoAllocator()
	t := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	bl := array.NewDecimal128Builder(mem, t)
	groups := make([]uint32, n)
	for i := range n {
		bl.Append(decimal128.FromI64(90000 + int64(i*7919%10000000)))
		groups[i] = uint32(i * 31 % 4)
	}
	col := bl.NewArray()
	bl.Release()
	defer col.Release()
	for _, f := range []AggregateFunc{AggSum, AggAvg} {
		b.Run(f.String(), func(b *testing.B) {
			_, mk, err := aggSignature(Aggregate{Func: f}, []arrow.DataType{t})
			if err != nil {
				b.Fatal(err)
			}
			acc := mk()
			cpu0 := processCPU()
			for b.Loop() {
				if err := acc.update([]arrow.Array{col}, groups, 4); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/value")
			b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(b.N)/n, "cpu-ns/value")
		})
	}
}

// processCPU is the process's user and system CPU time so far (a copy of
// physexpr's benchmark helper: test files are not shared across packages).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
