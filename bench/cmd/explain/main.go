package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/bench/tpcds"
	"github.com/stablerow/stablerow/bench/tpch"
	"github.com/stablerow/stablerow/engine"
)

func main() {
	suite := flag.String("suite", "tpch", "tpch or tpcds")
	dir := flag.String("dir", "", "the directory of the suite's Parquet files (one scale, e.g. /work/tpcdsdata/sf1-seed1)")
	sf := flag.Float64("sf", 1, "scale factor (TPC-H's Q11 fraction)")
	qs := flag.String("q", "", "queries, e.g. 1,6,14 (default all)")
	analyze := flag.Bool("analyze", false, "EXPLAIN ANALYZE: run each query, actual rows beside the estimates")
	threads := flag.Int("threads", 1, "stablerow's threads")
	runs := flag.Int("runs", 0, "instead of EXPLAIN, run each query this many times after one warm-up run and print each run's process CPU (getrusage, user+system) and wall time")
	flag.Parse()
	ctx := context.Background()
	want := map[int]bool{}
	for _, s := range strings.Split(*qs, ",") {
		if s = strings.TrimSpace(s); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				log.Fatalf("-q: %v", err)
			}
			want[n] = true
		}
	}
	type query struct {
		n   int
		sql string
	}
	var queries []query
	var db *engine.DB
	switch *suite {
	case "tpch":
		s, err := tpch.OpenSrow(ctx, *dir, "", tpch.DDLSpec, memory.DefaultAllocator)
		if err != nil {
			log.Fatal(err)
		}
		db = s.DB
		all, err := tpch.Queries(*sf)
		if err != nil {
			log.Fatal(err)
		}
		for _, q := range all {
			queries = append(queries, query{q.N, q.SQL})
		}
	case "tpcds":
		s, err := tpcds.OpenSrow(ctx, *dir, *threads, memory.DefaultAllocator)
		if err != nil {
			log.Fatal(err)
		}
		db = s.DB
		all, err := tpcds.Queries()
		if err != nil {
			log.Fatal(err)
		}
		for _, q := range all {
			queries = append(queries, query{q.N, q.SQL})
		}
	default:
		log.Fatalf("-suite: %q is neither tpch nor tpcds", *suite)
	}
	if err := db.SetThreads(*threads); err != nil {
		log.Fatal(err)
	}
	// COSTS: each node's estimated rows (rows=N), beside its actual
	// output_rows under ANALYZE.
	prefix := "EXPLAIN (COSTS) "
	if *analyze {
		prefix = "EXPLAIN (ANALYZE, COSTS) "
	}
	for _, q := range queries {
		if len(want) > 0 && !want[q.n] {
			continue
		}
		if *runs > 0 {
			timed(ctx, db, q.n, q.sql, *runs)
			continue
		}
		fmt.Printf("== Q%d\n", q.n)
		rows, err := db.Query(ctx, prefix+q.sql, nil)
		if err != nil {
			fmt.Printf("error: %v\n", err)
			continue
		}
		for rows.Next() {
			b := rows.Batch()
			for i := 0; i < int(b.NumRows()); i++ {
				for c := 0; c < int(b.NumCols()); c++ {
					fmt.Println(b.Column(c).ValueStr(i))
				}
			}
		}
		if err := rows.Err(); err != nil {
			fmt.Printf("error: %v\n", err)
		}
		rows.Close()
	}
}

// timed runs query n runs times after a warm-up and prints each run's
// process CPU and wall time in milliseconds.
func timed(ctx context.Context, db *engine.DB, n int, sql string, runs int) {
	var cpus, walls []string
	for i := 0; i <= runs; i++ {
		c0, w0 := cpuNow(), time.Now()
		rows, err := db.Query(ctx, sql, nil)
		if err != nil {
			log.Fatalf("Q%d: %v", n, err)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			log.Fatalf("Q%d: %v", n, err)
		}
		rows.Close()
		if i > 0 {
			cpus = append(cpus, fmt.Sprintf("%.1f", float64(cpuNow()-c0)/1e6))
			walls = append(walls, fmt.Sprintf("%.1f", float64(time.Since(w0))/1e6))
		}
	}
	fmt.Printf("Q%d cpu_ms=%s wall_ms=%s\n", n, strings.Join(cpus, ","), strings.Join(walls, ","))
}

// cpuNow is the process's user and system CPU so far, in nanoseconds.
func cpuNow() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
