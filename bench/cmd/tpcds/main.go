package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/stablerow/stablerow/bench/tpcds"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command with its arguments; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tpcds", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := fs.Float64("sf", 1, "scale factor")
	seed := fs.Uint64("seed", 1, "generator seed")
	dir := fs.String("dir", ".tpcds", "data directory (Parquet files under sf<SF>-seed<S>/, generated when missing)")
	reps := fs.Int("reps", 3, "timed runs per query and engine (medians reported; the engine that runs first alternates)")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up a stablerow query after this long (reported as an error)")
	only := fs.String("q", "", "queries to run, e.g. 1,6,14 (default all 99)")
	out := fs.String("out", "", "write the Markdown report to this file (default: standard output)")
	threads := fs.Int("threads", 0, "both engines' threads (default 0: the cores, DuckDB's default)")
	rollup := fs.Bool("rollup", true, "stablerow rolls grouping sets up from the finest set (false: aggregates every row once per set, the expansion)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *sf <= 0 {
		fmt.Fprintf(stderr, "tpcds: -sf: %g is not a positive scale factor\n", *sf)
		return 2
	}
	cfg := tpcds.Config{SF: *sf, Seed: *seed, Dir: *dir, Reps: *reps, Timeout: *timeout, Threads: *threads, Log: stderr, DisableRollup: !*rollup}
	if *only != "" {
		for _, s := range strings.Split(*only, ",") {
			n, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "q"))
			if err != nil || n < 1 || n > 99 {
				fmt.Fprintf(stderr, "tpcds: -q: %q is not a query number 1..99\n", s)
				return 2
			}
			cfg.Queries = append(cfg.Queries, n)
		}
	}
	rep, err := tpcds.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "tpcds:", err)
		return 1
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(stderr, "tpcds:", err)
			return 1
		}
		defer f.Close()
		w = f
	}
	rep.Markdown(w)
	for _, r := range rep.Results {
		if !r.Equal() {
			return 1
		}
	}
	return 0
}
