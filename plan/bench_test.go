package plan_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan"
)

// BenchmarkBuild measures planning the seed query (decode through
// substrait-go, rules, node construction).
func BenchmarkBuild(b *testing.B) {
	mem := memory.NewGoAllocator()
	c := stdCatalog(b, mem)
	pb := seedPlan(b, c, false)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := plan.Build(ctx, pb, c, plan.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSeedQuery runs the seed query for n ids over an n-row table,
// through the (test) take and through the generic hash join + sort.
func BenchmarkSeedQuery(b *testing.B) {
	const n = 20000
	mem := memory.NewGoAllocator()
	c := newCatalog(b, mem)
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i), "x", 1.0, uint64(i * 2), uint64(i)}
	}
	c.add("t", tUser, rows, 3)
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64((i * 7919) % (2 * n))
	}
	pb := seedPlan(b, c, false)
	ctx := context.Background()
	for _, opt := range []plan.Options{{}, {DisableIndexes: true}} {
		b.Run(fmt.Sprintf("DisableIndexes=%v", opt.DisableIndexes), func(b *testing.B) {
			node, err := plan.Build(ctx, pb, c, opt)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				s, err := node.Execute(ctx, &exec.TaskContext{Mem: mem, Params: map[int]any{1: ids}})
				if err != nil {
					b.Fatal(err)
				}
				out, err := exec.Collect(ctx, s)
				if err != nil {
					b.Fatal(err)
				}
				for _, o := range out {
					o.Release()
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "ids/s")
		})
	}
}
