package exec_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// The spill benchmarks' size and limit: the acceptance run is
//
//	go test -c -o /tmp/exec.test ./exec
//	/usr/bin/time -v /tmp/exec.test -test.run '^$' -test.bench 'Spill' -test.benchtime 1x -spill.rows 60000000 -spill.limit 256MB
var (
	spillRows  = flag.Int64("spill.rows", 6_000_000, "rows for BenchmarkSpillSort and BenchmarkSpillGroupBy")
	spillLimit = flag.String("spill.limit", "96MB", "memory limit for the spill benchmarks")
)

// genNode generates rows k = (i*7919) mod 1000003, g = i for i in [0, n):
// an input of any size that takes no memory.
type genNode struct {
	n       int64
	metrics exec.Metrics
}

var genSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "g", Type: arrow.PrimitiveTypes.Int64},
}, nil)

const genMod = 1000003

func genKey(i int64) int64 { return (i * 7919) % genMod }

func (g *genNode) Name() string                { return "genNode" }
func (g *genNode) Schema() *arrow.Schema       { return genSchema }
func (g *genNode) Children() []exec.Node       { return nil }
func (g *genNode) Properties() exec.Properties { return exec.Properties{} }
func (g *genNode) String() string              { return fmt.Sprintf("genNode: rows=%d", g.n) }
func (g *genNode) Metrics() *exec.Metrics      { return &g.metrics }
func (g *genNode) Execute(ctx context.Context, tc *exec.TaskContext) (exec.Stream, error) {
	return &genStream{n: g.n, mem: tc.Mem}, nil
}

type genStream struct {
	n, i int64
	mem  memory.Allocator
}

func (s *genStream) Schema() *arrow.Schema { return genSchema }
func (s *genStream) Close() error          { return nil }
func (s *genStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.i >= s.n {
		return nil, io.EOF
	}
	m := min(s.n-s.i, 8192)
	kb, gb := array.NewInt64Builder(s.mem), array.NewInt64Builder(s.mem)
	defer kb.Release()
	defer gb.Release()
	kb.Reserve(int(m))
	gb.Reserve(int(m))
	for j := s.i; j < s.i+m; j++ {
		kb.UnsafeAppend(genKey(j))
		gb.UnsafeAppend(j)
	}
	s.i += m
	k, g := kb.NewArray(), gb.NewArray()
	defer k.Release()
	defer g.Release()
	return array.NewRecordBatch(genSchema, []arrow.Array{k, g}, m), nil
}

// spillPool is the benchmark's pool. Like stablerow sql -memory-limit it
// sets Go's soft memory limit to twice the pool's (unless GOMEMLIMIT is
// set), so memory the operators released goes back before the heap
// doubles.
func spillPool(b *testing.B) *memlimit.Pool {
	n, err := memlimit.ParseSize(*spillLimit)
	if err != nil {
		b.Fatal(err)
	}
	if n > 0 && os.Getenv("GOMEMLIMIT") == "" {
		prev := debug.SetMemoryLimit(2 * n)
		b.Cleanup(func() { debug.SetMemoryLimit(prev) })
	}
	return memlimit.NewPool(n)
}

// BenchmarkSpillSort sorts spill.rows rows by k under spill.limit and
// checks the answer as it streams: k never decreases, ties keep input
// order (g increases), every row is there once (count and sum of g).
func BenchmarkSpillSort(b *testing.B) {
	n := *spillRows
	for b.Loop() {
		srt, err := exec.NewSortExec(&genNode{n: n}, []exec.SortKey{{Column: 0}})
		if err != nil {
			b.Fatal(err)
		}
		pool := spillPool(b)
		ctx := context.Background()
		s, err := srt.Execute(ctx, &exec.TaskContext{Mem: pool.Allocator(memory.DefaultAllocator), Pool: pool, SpillDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		var rows, sum int64
		lastK, lastG := int64(-1), int64(-1)
		for {
			bt, err := s.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			ks := bt.Column(0).(*array.Int64).Int64Values()
			gs := bt.Column(1).(*array.Int64).Int64Values()
			for j := range ks {
				if ks[j] < lastK || (ks[j] == lastK && gs[j] <= lastG) || genKey(gs[j]) != ks[j] {
					b.Fatalf("row %d out of order: (%d, %d) after (%d, %d)", rows+int64(j), ks[j], gs[j], lastK, lastG)
				}
				lastK, lastG = ks[j], gs[j]
				sum += gs[j]
			}
			rows += bt.NumRows()
			bt.Release()
		}
		s.Close()
		if rows != n || sum != n*(n-1)/2 {
			b.Fatalf("%d rows (sum %d), want %d (sum %d)", rows, sum, n, n*(n-1)/2)
		}
		spills := srt.Metrics().Snapshot()["spill_count"]
		b.ReportMetric(float64(spills), "runs")
		b.ReportMetric(float64(pool.PeakReserved())/(1<<20), "peak_reserved_MB")
		b.ReportMetric(float64(pool.PeakAllocated())/(1<<20), "peak_allocated_MB")
	}
}

// BenchmarkSpillGroupBy groups spill.rows rows by k (up to 1000003
// groups) under spill.limit: count(*) and sum(g) per group, checked
// against counts computed directly.
func BenchmarkSpillGroupBy(b *testing.B) {
	n := *spillRows
	want := make([]int64, genMod)
	for i := int64(0); i < n; i++ {
		want[genKey(i)]++
	}
	for b.Loop() {
		agg, err := exec.NewHashAggregateExec(&genNode{n: n}, []int{0}, []exec.Aggregate{{Func: exec.AggCountStar, Name: "n"}, {Func: exec.AggSum, Args: []int{1}, Name: "s"}})
		if err != nil {
			b.Fatal(err)
		}
		pool := spillPool(b)
		ctx := context.Background()
		s, err := agg.Execute(ctx, &exec.TaskContext{Mem: pool.Allocator(memory.DefaultAllocator), Pool: pool, SpillDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		var groups, rows int64
		for {
			bt, err := s.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			ks := bt.Column(0).(*array.Int64).Int64Values()
			cs := bt.Column(1).(*array.Int64).Int64Values()
			for j := range ks {
				if want[ks[j]] != cs[j] {
					b.Fatalf("group %d: count %d, want %d", ks[j], cs[j], want[ks[j]])
				}
				rows += cs[j]
			}
			groups += bt.NumRows()
			bt.Release()
		}
		s.Close()
		if rows != n {
			b.Fatalf("counts add up to %d, want %d", rows, n)
		}
		b.ReportMetric(float64(groups), "groups")
		b.ReportMetric(float64(pool.PeakReserved())/(1<<20), "peak_reserved_MB")
		b.ReportMetric(float64(pool.PeakAllocated())/(1<<20), "peak_allocated_MB")
	}
}
