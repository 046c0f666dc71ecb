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

	"github.com/stablerow/stablerow/bench/tpch"
	"github.com/stablerow/stablerow/exec/memlimit"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command with its arguments; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tpch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := fs.Float64("sf", 1, "scale factor")
	seed := fs.Uint64("seed", 1, "generator seed")
	dir := fs.String("dir", ".tpch", "data directory (Parquet files under sf<SF>/, generated when missing)")
	reps := fs.Int("reps", 3, "timed runs per query and engine (medians reported)")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up a stablerow query after this long (reported as an error)")
	only := fs.String("q", "", "queries to run, e.g. 1,6,14 (default all)")
	out := fs.String("out", "", "write the Markdown report to this file (default: standard output)")
	threads := fs.Int("threads", 0, "stablerow's threads (SET threads; default 0: the cores, as DuckDB's default)")
	ddl := fs.String("ddl", tpch.DDLSpec, "column types: spec (the specification's CHAR(n), VARCHAR(n), INTEGER keys), text (TEXT, BIGINT), or both: stablerow with spec against stablerow with text, paired, without DuckDB")
	profile := fs.String("cpuprofile", "", "write a CPU profile of each query's stablerow runs from SQL into this directory (q<N>.pprof; with -ddl both q<N>-spec.pprof and q<N>-text.pprof, profiled apart from the timed runs)")
	encoded := fs.Bool("encoded", false, "stablerow writes its tables as encoded data files (table.Options.EncodedDataFiles) instead of the default format")
	memLimit := fs.String("memory-limit", "", "both engines' memory_limit (e.g. 8GB: stablerow's SET memory_limit, DuckDB's SET memory_limit alike); default none (DuckDB's own default)")
	dbDir := fs.String("db", "", "put both databases on disk in this directory (made afresh: stablerow/, duckdb.db, and stablerow's spill files in spill/, whose size is sampled); default in memory")
	plans := fs.Bool("substrait", true, "also run each query from its binary Substrait plan")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg := tpch.Config{SF: *sf, Seed: *seed, Dir: *dir, Reps: *reps, Timeout: *timeout, Log: stderr, Threads: *threads, Profile: *profile, DDL: *ddl,
		DBDir: *dbDir, NoPlans: !*plans}
	cfg.Table.EncodedDataFiles = *encoded
	if *memLimit != "" {
		n, err := memlimit.ParseSize(*memLimit)
		if err != nil || n <= 0 {
			fmt.Fprintf(stderr, "tpch: -memory-limit: %q is not a size such as 8GB\n", *memLimit)
			return 2
		}
		cfg.MemoryLimit = n
	}
	if *ddl == tpch.DDLBoth && (cfg.MemoryLimit > 0 || cfg.DBDir != "" || cfg.NoPlans) {
		fmt.Fprintln(stderr, "tpch: -memory-limit, -db and -substrait are for the run against DuckDB, not -ddl both")
		return 2
	}
	if *ddl != tpch.DDLSpec && *ddl != tpch.DDLText && *ddl != tpch.DDLBoth {
		fmt.Fprintf(stderr, "tpch: -ddl: %q is not spec, text or both\n", *ddl)
		return 2
	}
	if *only != "" {
		for _, s := range strings.Split(*only, ",") {
			n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "q"))
			if err != nil || n < 1 || n > 22 {
				fmt.Fprintf(stderr, "tpch: -q: %q is not a query number 1..22\n", s)
				return 2
			}
			cfg.Queries = append(cfg.Queries, n)
		}
	}
	var report interface{ Markdown(io.Writer) }
	failed := false
	if *ddl == tpch.DDLBoth {
		rep, err := tpch.RunPaired(ctx, cfg)
		if err != nil {
			fmt.Fprintln(stderr, "tpch:", err)
			return 1
		}
		for _, r := range rep.Results {
			failed = failed || r.Err != "" || r.Diff != ""
		}
		if over := rep.Over(); len(over) > 0 {
			fmt.Fprintf(stderr, "tpch: spec/text CPU ratio over %.2f: %s\n", tpch.PairedLimit, strings.Join(over, ", "))
		}
		report = rep
	} else {
		rep, err := tpch.Run(ctx, cfg)
		if err != nil {
			fmt.Fprintln(stderr, "tpch:", err)
			return 1
		}
		for _, r := range rep.Results {
			failed = failed || !r.Equal()
		}
		report = rep
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(stderr, "tpch:", err)
			return 1
		}
		defer f.Close()
		w = f
	}
	report.Markdown(w)
	if failed {
		return 1
	}
	return 0
}
