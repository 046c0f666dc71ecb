package engine_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
)

// BenchmarkSharedTPCH runs TPC-H Q15 (a CTE read twice) and Q11 (the
// HAVING subquery repeats the outer FROM and WHERE) from an SF 1 database
// in stablerow's format, with shared subplans and without
// (Options.DisableSharing), at threads 1 and 2, reporting the process's
// CPU time per query (BENCHMARKS.md, "Shared subplans"). Read only:
//
//	STABLEROW_TPCH_DB=/work/tpchdb1 go test ./engine -run '^$' -bench BenchmarkSharedTPCH -benchtime 5x -count 3
func BenchmarkSharedTPCH(b *testing.B) {
	dir := os.Getenv("STABLEROW_TPCH_DB")
	if dir == "" {
		b.Skip("STABLEROW_TPCH_DB names no TPC-H database")
	}
	queries := map[string]string{}
	for _, q := range []string{"q11", "q15"} {
		src, err := os.ReadFile("../bench/tpch/queries/" + q + ".sql")
		if err != nil {
			b.Fatal(err)
		}
		queries[q] = strings.ReplaceAll(string(src), "{FRACTION}", "0.0001")
	}
	for _, q := range []string{"q11", "q15"} {
		for _, threads := range []int{1, 2} {
			for _, shared := range []bool{false, true} {
				b.Run(fmt.Sprintf("%s/threads=%d/shared=%v", q, threads, shared), func(b *testing.B) {
					db, err := engine.Open(dir, engine.Options{Threads: threads, DisableSharing: !shared})
					if err != nil {
						b.Fatal(err)
					}
					run := func() {
						rs, err := db.Query(context.Background(), queries[q], nil)
						if err != nil {
							b.Fatal(err)
						}
						for rs.Next() {
						}
						if err := rs.Close(); err != nil {
							b.Fatal(err)
						}
					}
					run() // warm: the files' pages mapped
					cpu0 := cpuTime()
					for b.Loop() {
						run()
					}
					b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
				})
			}
		}
	}
}
