package exec_test

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/internal/arrowtest"
)

// BenchmarkHashJoinGrace joins 200K probe rows with 200K build rows of
// random keys in memory and under limits that make the build side spill
// (join_spill.go): a quarter of it held (hybrid), and one limit that
// spills nearly every partition. Reports the spilled bytes per run.
func BenchmarkHashJoinGrace(b *testing.B) {
	mem := exectest.Mem(b)
	r := rand.New(rand.NewPCG(3, 3))
	values := func(n int) *exec.ValuesExec {
		bt, _ := exectest.Batch(mem, arrowtest.KVSchema, benchRows(n, r))
		v, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{bt})
		bt.Release()
		return v
	}
	l, rr := values(200_000), values(200_000)
	defer l.Release()
	defer rr.Release()
	for _, typ := range []exec.JoinType{exec.JoinInner, exec.JoinFull} {
		j, err := exec.NewHashJoinExec(l, rr, []int{0}, []int{0}, typ)
		if err != nil {
			b.Fatal(err)
		}
		for _, lim := range []struct {
			name  string
			limit int64
		}{{"memory", 0}, {"hybrid-4MB", 4 << 20}, {"spilled-1MB", 1 << 20}} {
			b.Run(typ.String()+"/"+lim.name, func(b *testing.B) {
				dir := b.TempDir()
				before := j.Metrics().Snapshot()["spilled_bytes"]
				runs := 0
				for b.Loop() {
					runs++
					s, _ := j.Execute(b.Context(), &exec.TaskContext{Mem: mem, BatchSize: 8192, Pool: memlimit.NewPool(lim.limit), SpillDir: dir})
					out, err := exec.Collect(b.Context(), s)
					if err != nil {
						b.Fatal(err)
					}
					for _, o := range out {
						o.Release()
					}
				}
				b.ReportMetric(float64(j.Metrics().Snapshot()["spilled_bytes"]-before)/float64(runs), "spilled-B/op")
			})
		}
	}
}

// BenchmarkHashJoinGraceParallel is BenchmarkHashJoinGrace's inner join
// at two partitions (the probe side repartitioned, one shared build):
// in memory, and with the shared build spilled (join_spill_shared.go).
func BenchmarkHashJoinGraceParallel(b *testing.B) {
	mem := exectest.Mem(b)
	r := rand.New(rand.NewPCG(3, 3))
	values := func(n int) *exec.ValuesExec {
		bt, _ := exectest.Batch(mem, arrowtest.KVSchema, benchRows(n, r))
		v, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{bt})
		bt.Release()
		return v
	}
	l, rr := values(200_000), values(200_000)
	defer l.Release()
	defer rr.Release()
	j, err := exec.NewHashJoinExec(l, rr, []int{0}, []int{0}, exec.JoinInner)
	if err != nil {
		b.Fatal(err)
	}
	rp, err := exec.NewRepartitionExec(l, 2, []int{1})
	if err != nil {
		b.Fatal(err)
	}
	pj, err := j.PerPartition(rp, rr)
	if err != nil {
		b.Fatal(err)
	}
	top := exec.NewCoalescePartitionsExec(pj)
	for _, lim := range []struct {
		name  string
		limit int64
	}{{"memory", 0}, {"hybrid-4MB", 4 << 20}, {"spilled-1MB", 1 << 20}} {
		b.Run(lim.name, func(b *testing.B) {
			dir := b.TempDir()
			before := pj.Metrics().Snapshot()["spilled_bytes"]
			runs := 0
			for b.Loop() {
				runs++
				s, _ := top.Execute(b.Context(), &exec.TaskContext{Mem: mem, BatchSize: 8192, Pool: memlimit.NewPool(lim.limit), SpillDir: dir})
				out, err := exec.Collect(b.Context(), s)
				if err != nil {
					b.Fatal(err)
				}
				for _, o := range out {
					o.Release()
				}
			}
			b.ReportMetric(float64(pj.Metrics().Snapshot()["spilled_bytes"]-before)/float64(runs), "spilled-B/op")
		})
	}
}
