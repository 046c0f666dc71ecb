package tpcds

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/bench/tpch"
	"github.com/stablerow/stablerow/engine"
)

// Config is one run of the benchmark.
type Config struct {
	SF      float64
	Seed    uint64
	Dir     string        // Parquet files: Dir/sf<SF>/<table>.parquet, generated when missing
	Reps    int           // timed runs per query and engine (the median is reported); 0: 1
	Timeout time.Duration // per stablerow run of a query (0: none); a query past it is reported as an error
	Queries []int         // nil: all 99
	Threads int           // both engines' threads; 0: the cores (DuckDB's default)
	Log     io.Writer
	Mem     memory.Allocator
	// DisableRollup: stablerow plans grouping sets as their expansion
	// (engine.Options.DisableRollup), the before of the roll-up.
	DisableRollup bool
}

// Result is one query's outcome.
type Result struct {
	Query     Query
	Rows      int    // DuckDB's row count
	Err       string // stablerow's error ("" ran)
	Diff      string // "" equal to DuckDB's answer
	Reordered bool   // equal, but in another order among ORDER BY ties
	Srow      time.Duration
	Duck      time.Duration
}

// Equal reports whether stablerow answered as DuckDB did.
func (r *Result) Equal() bool { return r.Err == "" && r.Diff == "" }

// Report is a run's results and its setting.
type Report struct {
	Config      Config
	DuckVersion string
	DuckThreads string
	SrowThreads int
	GenTime     time.Duration // 0: the files existed
	LoadSrow    time.Duration
	LoadDuck    time.Duration
	Results     []Result
}

// DataDir is where a scale factor's files live under dir.
func DataDir(dir string, sf float64, seed uint64) string {
	return filepath.Join(dir, fmt.Sprintf("sf%g-seed%d", sf, seed))
}

// Run generates the data if missing, loads both engines from it and runs
// the queries on both, each stablerow answer compared with DuckDB's.
// Each repetition runs the two engines back to back, the order flipped
// from one repetition to the next.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Reps <= 0 {
		cfg.Reps = 1
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	threads := cfg.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	rep := &Report{Config: cfg}
	data := DataDir(cfg.Dir, cfg.SF, cfg.Seed)
	if _, err := os.Stat(ParquetPath(data, Tables[len(Tables)-1].Name)); err != nil {
		fmt.Fprintf(cfg.Log, "generating SF %g into %s\n", cfg.SF, data)
		start := time.Now()
		if err := NewGenerator(cfg.SF, cfg.Seed, cfg.Mem).WriteParquet(ctx, data); err != nil {
			return nil, err
		}
		rep.GenTime = time.Since(start)
	}
	start := time.Now()
	duck, err := OpenDuck(ctx, data, threads)
	if err != nil {
		return nil, err
	}
	defer duck.Close()
	rep.LoadDuck = time.Since(start)
	rep.DuckVersion, rep.DuckThreads = duck.Setting(ctx, "version"), duck.Setting(ctx, "threads")
	start = time.Now()
	srow, err := OpenSrowWith(ctx, data, threads, engine.Options{Mem: cfg.Mem, DisableRollup: cfg.DisableRollup})
	if err != nil {
		return nil, err
	}
	rep.LoadSrow = time.Since(start)
	rep.SrowThreads = srow.DB.Threads()
	fmt.Fprintf(cfg.Log, "loaded: DuckDB %v, stablerow %v\n", rep.LoadDuck.Round(time.Millisecond), rep.LoadSrow.Round(time.Millisecond))
	qs, err := Queries()
	if err != nil {
		return nil, err
	}
	for _, q := range qs {
		if cfg.Queries != nil && !slices.Contains(cfg.Queries, q.N) {
			continue
		}
		r, err := runOne(ctx, cfg, duck, srow, q)
		if err != nil {
			return nil, err
		}
		rep.Results = append(rep.Results, r)
		fmt.Fprintln(cfg.Log, r.line())
	}
	return rep, nil
}

// runOne runs a query cfg.Reps times on each engine, DuckDB first in even
// repetitions and stablerow first in odd ones, and compares stablerow's
// first answer with DuckDB's; stablerow stops at its first error.
func runOne(ctx context.Context, cfg Config, duck *Duck, srow *Srow, q Query) (Result, error) {
	r := Result{Query: q}
	var want, got *tpch.Answer
	var dt, st []time.Duration
	runDuck := func() error {
		a, d, err := duck.Run(ctx, q.SQL)
		if err != nil {
			// DuckDB is the oracle: a query it refuses is the benchmark's bug.
			return fmt.Errorf("%s on DuckDB: %w", q.Name, err)
		}
		want, dt = a, append(dt, d)
		return nil
	}
	runSrow := func() {
		if r.Err != "" {
			return
		}
		a, d, err := srowRun(ctx, cfg.Timeout, srow, q.SQL)
		if err != nil {
			r.Err = err.Error()
			return
		}
		if got == nil {
			got = a
		}
		st = append(st, d)
	}
	for rep := range cfg.Reps {
		if rep%2 == 1 {
			runSrow()
		}
		if err := runDuck(); err != nil {
			return r, err
		}
		if rep%2 == 0 {
			runSrow()
		}
	}
	r.Rows = len(want.Rows)
	if r.Err == "" {
		if _, padded := charPadded[q.Name]; padded {
			got, want = withoutBlanks(got), withoutBlanks(want)
		}
		r.Diff, r.Reordered = Diff(got, want, q.Ordered)
	}
	r.Duck, r.Srow = median(dt), median(st)
	return r, nil
}

func srowRun(ctx context.Context, timeout time.Duration, s *Srow, q string) (*tpch.Answer, time.Duration, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	return s.Run(ctx, q)
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
