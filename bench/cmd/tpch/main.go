// Command tpch runs TPC-H on stablerow next to DuckDB (make tpch): it
// generates the data at -sf into -dir (once; reused), loads both engines
// from the same Parquet files, runs the 22 queries on DuckDB, on
// stablerow from SQL and on stablerow from each query's binary Substrait
// plan, compares every answer with DuckDB's and writes a Markdown report.
// It exits 1 when an answer differs or stablerow fails a query.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/stablerow/stablerow/bench/tpch"
)

func main() {
	sf := flag.Float64("sf", 1, "scale factor")
	seed := flag.Uint64("seed", 1, "generator seed")
	dir := flag.String("dir", ".tpch", "data directory (Parquet files under sf<SF>/, generated when missing)")
	reps := flag.Int("reps", 3, "timed runs per query and engine (medians reported)")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up a stablerow query after this long (reported as an error)")
	only := flag.String("q", "", "queries to run, e.g. 1,6,14 (default all)")
	out := flag.String("out", "", "write the Markdown report to this file (default: standard output)")
	threads := flag.Int("threads", 0, "stablerow's threads (SET threads; default 0: the cores, as DuckDB's default)")
	ddl := flag.String("ddl", tpch.DDLSpec, "column types: spec (the specification's CHAR(n), VARCHAR(n), INTEGER keys) or text (TEXT, BIGINT)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of each query's stablerow runs from SQL into this directory (q<N>.pprof)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := tpch.Config{SF: *sf, Seed: *seed, Dir: *dir, Reps: *reps, Timeout: *timeout, Log: os.Stderr, Threads: *threads, Profile: *profile, DDL: *ddl}
	if *ddl != tpch.DDLSpec && *ddl != tpch.DDLText {
		fmt.Fprintf(os.Stderr, "tpch: -ddl: %q is not spec or text\n", *ddl)
		os.Exit(2)
	}
	if *only != "" {
		for _, s := range strings.Split(*only, ",") {
			n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "q"))
			if err != nil || n < 1 || n > 22 {
				fmt.Fprintf(os.Stderr, "tpch: -q: %q is not a query number 1..22\n", s)
				os.Exit(2)
			}
			cfg.Queries = append(cfg.Queries, n)
		}
	}
	rep, err := tpch.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tpch:", err)
		os.Exit(1)
	}
	w := os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tpch:", err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	rep.Markdown(w)
	for _, r := range rep.Results {
		if !r.Equal() {
			os.Exit(1)
		}
	}
}
