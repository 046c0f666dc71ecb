package exec_test

import (
	"context"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
)

// BenchmarkExpandSeriesTypes: one input row expanded to a 1M-value
// series of each type, 8192-row batches; ns/value and cpu-ns/value (the
// process's CPU time, steadier on a loaded machine).
func BenchmarkExpandSeriesTypes(b *testing.B) {
	const n = 1 << 20
	mem := memory.NewGoAllocator()
	tt := &arrow.TimestampType{Unit: arrow.Microsecond}
	dt := &arrow.Decimal128Type{Precision: 38, Scale: 2}
	cases := []struct {
		name  string
		typ   arrow.DataType
		args  exec.SeriesArgs
		fill  func(rb *array.RecordBuilder)
		ncols int
	}{
		{"bigint", arrow.PrimitiveTypes.Int64, exec.SeriesArgs{Start: 0, Stop: 1, Step: 2}, func(rb *array.RecordBuilder) {
			rb.Field(0).(*array.Int64Builder).Append(1)
			rb.Field(1).(*array.Int64Builder).Append(n)
			rb.Field(2).(*array.Int64Builder).Append(1)
		}, 3},
		{"numeric", dt, exec.SeriesArgs{Start: 0, Stop: 1, Step: 2}, func(rb *array.RecordBuilder) {
			rb.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(0))
			rb.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(n * 25))
			rb.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(25))
		}, 3},
		{"timestamp_day", tt, exec.SeriesArgs{Start: 0, Stop: 1, Interval: &exec.Interval{Days: 1}}, func(rb *array.RecordBuilder) {
			rb.Field(0).(*array.TimestampBuilder).Append(0)
			rb.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(n-1) * 86400_000_000))
		}, 2},
		{"timestamp_month", tt, exec.SeriesArgs{Start: 0, Stop: 1, Interval: &exec.Interval{Months: 1}}, func(rb *array.RecordBuilder) {
			rb.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(-int64(40000) * 365 * 86400_000_000 / 10))
			rb.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(40000) * 365 * 86400_000_000))
		}, 2},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			fields := make([]arrow.Field, c.ncols)
			for i := range fields {
				fields[i] = arrow.Field{Name: string(rune('a' + i)), Type: c.typ}
			}
			sc := arrow.NewSchema(fields, nil)
			rb := array.NewRecordBuilder(mem, sc)
			c.fill(rb)
			batch := rb.NewRecordBatch()
			rb.Release()
			v, err := exec.NewValuesExec(sc, []arrow.RecordBatch{batch})
			batch.Release()
			if err != nil {
				b.Fatal(err)
			}
			defer v.Release()
			e, err := exec.NewExpandExec(v, c.args, "g", "", false)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			cpu0 := selfCPU()
			var rows int64
			b.ResetTimer()
			for range b.N {
				s, err := e.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 8192})
				if err != nil {
					b.Fatal(err)
				}
				for got := int64(0); got < n; {
					rb, err := s.Next(ctx)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					got += rb.NumRows()
					rows += rb.NumRows()
					rb.Release()
				}
				s.Close()
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/value")
			b.ReportMetric(float64((selfCPU()-cpu0).Nanoseconds())/float64(rows), "cpu-ns/value")
		})
	}
}

// selfCPU is the process's user and system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
