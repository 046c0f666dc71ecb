package engine_test

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"

	"github.com/stablerow/stablerow/engine"
)

// The parallel-execution benchmarks: a GROUP BY, an ORDER BY and a join
// over 4M rows in 8 fragments, at threads 1, 2 and 4 (BENCHMARKS.md,
// "Parallel execution"):
//
//	go test ./engine -run '^$' -bench BenchmarkParallel -benchtime 5x
const parallelRows = 4 << 20

var parallelBench struct {
	once sync.Once
	db   *engine.DB
	err  error
}

func parallelBenchDB(b *testing.B) *engine.DB {
	parallelBench.once.Do(func() {
		db := engine.OpenMemory(engine.Options{})
		ctx := context.Background()
		_, err := db.Exec(ctx, "CREATE TABLE f (k BIGINT NOT NULL, g BIGINT NOT NULL, v BIGINT NOT NULL); CREATE TABLE d (id BIGINT NOT NULL, w BIGINT NOT NULL)", nil)
		const frag = parallelRows / 8
		for i := 0; i < 8 && err == nil; i++ {
			_, err = db.Exec(ctx, fmt.Sprintf("INSERT INTO f SELECT s, s * 7919 %% 10007, s * 104729 %% 1000003 FROM generate_series(%d, %d) AS x(s)", i*frag, (i+1)*frag-1), nil)
		}
		for i := 0; i < 4 && err == nil; i++ {
			_, err = db.Exec(ctx, fmt.Sprintf("INSERT INTO d SELECT s, s %% 97 FROM generate_series(%d, %d) AS x(s)", i*25000, (i+1)*25000-1), nil)
		}
		parallelBench.db, parallelBench.err = db, err
	})
	if parallelBench.err != nil {
		b.Fatal(parallelBench.err)
	}
	return parallelBench.db
}

func BenchmarkParallel(b *testing.B) {
	db := parallelBenchDB(b)
	queries := []struct{ name, q string }{
		{"groupby", "SELECT g, count(*), sum(v), min(k), max(v) FROM f GROUP BY g"},
		{"orderby", "SELECT k, v FROM f ORDER BY v DESC, k"},
		{"join", "SELECT d.w, count(*), sum(f.v) FROM f JOIN d ON f.g * 10 = d.id GROUP BY d.w"},
	}
	for _, q := range queries {
		for _, threads := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/threads=%d", q.name, threads), func(b *testing.B) {
				if err := db.SetThreads(threads); err != nil {
					b.Fatal(err)
				}
				var rows int64
				cpu0 := cpuTime()
				for b.Loop() {
					rows = 0
					rs, err := db.Query(context.Background(), q.q, nil)
					if err != nil {
						b.Fatal(err)
					}
					for rs.Next() {
						rows += rs.Batch().NumRows()
					}
					if err := rs.Close(); err != nil {
						b.Fatal(err)
					}
				}
				// On a shared machine wall time depends on the other
				// processes; the process's CPU time per query shows what
				// partitioning costs (equal CPU, less wall: it scales).
				b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(parallelRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
				if rows == 0 {
					b.Fatal("no rows")
				}
			})
		}
	}
}

// cpuTime is the process's user + system CPU time in ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
