package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/stablerow/stablerow/difftest"
	"github.com/stablerow/stablerow/engine"
)

func main() {
	dsn := flag.String("dsn", os.Getenv("DIFFTEST_DSN"), "PostgreSQL connection string")
	seed := flag.Uint64("seed", 1, "seed of the case generator")
	cases := flag.Int("cases", 400, "number of cases (ignored with -duration)")
	duration := flag.Duration("duration", 0, "run for this long instead of -cases (e.g. 2h)")
	one := flag.Int("case", -1, "run only case I of the seed (a reproducer from a report)")
	shrink := flag.Int("shrink", 600, "runs the shrinker may spend on one divergence")
	regressions := flag.String("regressions", "regressions", "directory of PostgreSQL-verified .slt regression files (\"\": none)")
	verbose := flag.Bool("v", false, "print every case's query")
	rewrite := flag.Bool("rewrite", false, "write PostgreSQL's answers into the regression files' query records, then stop (review the diff)")
	skipOpen := flag.Bool("skip-open", false, "do not fail on divergences of the open bug classes (difftest/open.go) nor on failing regression files (still reported); only when the lead asks")
	flag.Parse()
	if *dsn == "" {
		fmt.Fprintln(os.Stderr, "difftest: -dsn (or DIFFTEST_DSN) is required; run.sh starts a server and passes it")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	pg, err := difftest.DialPG(ctx, *dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer pg.Close()
	r := &difftest.Runner{PG: pg, SR: difftest.NewStablerow(engine.Options{})}

	failed := false
	if *regressions != "" && *one < 0 {
		n, fails, err := r.RunRegressions(ctx, *regressions, engine.Options{}, *rewrite)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for _, f := range fails {
			fmt.Println("REGRESSION", f)
		}
		fmt.Printf("difftest: regressions: %d records, %d failing\n", n, len(fails))
		// -skip-open: the regression files are the open classes'
		// reproducers; they stay reported, not fatal.
		failed = len(fails) > 0 && !*skipOpen
		if *rewrite {
			return
		}
	}

	cfg := difftest.Config{Seed: *seed, Cases: *cases, Duration: *duration, Case: *one, Shrink: *shrink, Verbose: *verbose, SkipOpen: *skipOpen}
	if *duration > 0 {
		cfg.Cases = 0
	}
	t0 := time.Now()
	sum, err := r.Run(ctx, cfg, os.Stdout)
	if sum != nil {
		sum.Print(os.Stdout)
	}
	fmt.Printf("difftest: seed %d, %s\n", *seed, time.Since(t0).Round(time.Millisecond))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if failed || sum.Divergent() {
		os.Exit(1)
	}
}
