package tpch

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table"
)

// Config is one run of the benchmark.
type Config struct {
	SF      float64
	Seed    uint64
	Dir     string        // Parquet files: Dir/sf<SF>/<table>.parquet, generated when missing
	Reps    int           // timed runs per query and engine (the median is reported); 0: 1
	Timeout time.Duration // per stablerow run of a query (0: none); a query past it is reported as an error
	Queries []int         // nil: all 22
	Threads int           // stablerow's degree of parallelism (SET threads); 0: runtime.NumCPU(), as DuckDB's default
	DDL     string        // the tables' column types: DDLSpec (the specification's; "" too) or DDLText
	Profile string        // a directory: write a CPU profile of each query's stablerow runs from SQL (q<N>.pprof); "": none
	Table   table.Options // stablerow's table write options (the data-file format: EncodedDataFiles)
	Log     io.Writer
	Mem     memory.Allocator
	// MemoryLimit: both engines' memory_limit in bytes (stablerow's SET
	// memory_limit per statement, DuckDB's SET memory_limit); 0: their
	// defaults (none; DuckDB's 80% of RAM).
	MemoryLimit int64
	// DBDir: both databases on disk under it (stablerow/, duckdb.db, made
	// afresh), not in memory, with stablerow's spill files in spill/
	// (their size is sampled: Result.SpillPeak); "": in memory.
	DBDir string
	// NoPlans skips the runs from each query's Substrait plan.
	NoPlans bool
}

// Result is one query's outcome.
type Result struct {
	Query     Query
	Rows      int           // DuckDB's row count
	SQLErr    string        // stablerow from SQL: "" ran
	SQLDiff   string        // "" equal to DuckDB
	PlanErr   string        // stablerow from its Substrait plan: "" ran
	PlanDiff  string        // "" equal to DuckDB
	PlanBytes int           // the binary plan's size
	Srow      time.Duration // median, from SQL
	PeakRSS   int64         // the process's peak resident bytes so far, after the query (both engines in one process)
	SpillPeak int64         // the most bytes stablerow's spill directory held during its runs from SQL (sampled; Config.DBDir only)
	SrowCPU   time.Duration // median CPU time of the process during a run from SQL (DuckDB idle)
	SrowPlan  time.Duration // median, from the Substrait plan
	Duck      time.Duration // median
}

// Equal reports whether both stablerow answers equal DuckDB's.
func (r *Result) Equal() bool {
	return r.SQLErr == "" && r.SQLDiff == "" && r.PlanErr == "" && r.PlanDiff == ""
}

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
func DataDir(dir string, sf float64) string {
	return filepath.Join(dir, fmt.Sprintf("sf%g", sf))
}

// Run generates the data if missing, loads both engines from it and runs
// the queries: DuckDB, stablerow from SQL, stablerow from the query's
// Substrait plan (binary), each answer compared with DuckDB's.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.DDL == "" {
		cfg.DDL = DDLSpec
	}
	cfg = cfg.withDefaults()
	rep := &Report{Config: cfg}
	data, genTime, err := ensureData(ctx, cfg)
	if err != nil {
		return nil, err
	}
	rep.GenTime = genTime
	start := time.Now()
	duckPath, srowPath, err := cfg.dbPaths()
	if err != nil {
		return nil, err
	}
	duck, err := OpenDuckAt(ctx, data, duckPath, cfg.DDL, cfg.MemoryLimit)
	if err != nil {
		return nil, err
	}
	defer duck.Close()
	rep.LoadDuck = time.Since(start)
	rep.DuckVersion, rep.DuckThreads = duck.Version(ctx), duck.Threads(ctx)
	start = time.Now()
	srow, err := openSrowThreads(ctx, data, srowPath, cfg.DDL, cfg)
	if err != nil {
		return nil, err
	}
	rep.SrowThreads = srow.DB.Threads()
	rep.LoadSrow = time.Since(start)
	fmt.Fprintf(cfg.Log, "loaded: DuckDB %v, stablerow %v\n", rep.LoadDuck.Round(time.Millisecond), rep.LoadSrow.Round(time.Millisecond))
	rep.Results, err = eachQuery(cfg, func(q Query) (Result, error) {
		return runOne(ctx, cfg, duck, srow, q)
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// withDefaults is cfg with its zero settings given their meaning: one
// repetition, as many threads as cores, no log.
func (cfg Config) withDefaults() Config {
	if cfg.Reps <= 0 {
		cfg.Reps = 1
	}
	if cfg.Threads <= 0 {
		cfg.Threads = runtime.NumCPU()
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	return cfg
}

// ensureData generates the scale factor's Parquet files when they are
// missing and returns their directory and the time the generation took
// (0: the files existed).
func ensureData(ctx context.Context, cfg Config) (string, time.Duration, error) {
	data := DataDir(cfg.Dir, cfg.SF)
	if _, err := os.Stat(ParquetPath(data, "lineitem")); err == nil {
		return data, 0, nil
	}
	fmt.Fprintf(cfg.Log, "generating SF %g into %s\n", cfg.SF, data)
	start := time.Now()
	if err := NewGenerator(cfg.SF, cfg.Seed, cfg.Mem).WriteParquet(ctx, data); err != nil {
		return "", 0, err
	}
	return data, time.Since(start), nil
}

// openSrowThreads loads a stablerow database with ddl's column types
// (OpenSrow) and sets its degree of parallelism to cfg.Threads: stablerow
// runs at its best next to DuckDB with as many partitions as DuckDB has
// threads by default (the cores), not the library's serial default.
func openSrowThreads(ctx context.Context, data, path, ddl string, cfg Config) (*Srow, error) {
	s, err := openSrowAt(ctx, data, path, ddl, cfg.Mem, cfg.Table, cfg.spillDir())
	if err != nil {
		return nil, err
	}
	if err := s.DB.SetThreads(cfg.Threads); err != nil {
		return nil, err
	}
	if cfg.MemoryLimit > 0 {
		if err := s.DB.SetMemoryLimit(cfg.MemoryLimit); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// eachQuery runs the queries cfg selects at its scale factor in order,
// logging each result's line; the first error stops it.
func eachQuery[R any, P interface {
	*R
	line() string
}](cfg Config, run func(Query) (R, error)) ([]R, error) {
	qs, err := Queries(cfg.SF)
	if err != nil {
		return nil, err
	}
	var out []R
	for _, q := range qs {
		if cfg.Queries != nil && !slices.Contains(cfg.Queries, q.N) {
			continue
		}
		r, err := run(q)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
		fmt.Fprintf(cfg.Log, "%s\n", P(&r).line())
	}
	return out, nil
}

func runOne(ctx context.Context, cfg Config, duck *Duck, srow *Srow, q Query) (Result, error) {
	r := Result{Query: q}
	var want *Answer
	var dt []time.Duration
	for range cfg.Reps {
		a, d, err := duck.Run(ctx, q.SQL)
		if err != nil {
			// DuckDB is the oracle: a query it refuses is the benchmark's bug.
			return r, fmt.Errorf("%s on DuckDB: %w", q.Name, err)
		}
		want, dt = a, append(dt, d)
	}
	r.Rows, r.Duck = len(want.Rows), median(dt)
	var st, ct []time.Duration
	stopProfile, err := startProfile(cfg.Profile, q.N)
	if err != nil {
		return r, err
	}
	stopSpill := sampleDirSize(cfg.spillDir())
	for range cfg.Reps {
		cpu := processCPU()
		got, d, err := withTimeout(ctx, cfg.Timeout, func(ctx context.Context) (*Answer, time.Duration, error) {
			return srow.Run(ctx, q.SQL)
		})
		if err != nil {
			r.SQLErr = err.Error()
			break
		}
		st, ct = append(st, d), append(ct, processCPU()-cpu)
		if r.SQLDiff = Diff(got, want); r.SQLDiff != "" {
			break
		}
	}
	stopProfile()
	r.SpillPeak = stopSpill()
	r.PeakRSS = peakRSS()
	r.Srow, r.SrowCPU = median(st), median(ct)
	if cfg.NoPlans {
		return r, nil
	}
	plan, err := srow.Substrait(ctx, q.SQL)
	if err != nil {
		r.PlanErr = err.Error()
		return r, nil
	}
	r.PlanBytes = len(plan)
	var pt []time.Duration
	for range cfg.Reps {
		got, d, err := withTimeout(ctx, cfg.Timeout, func(ctx context.Context) (*Answer, time.Duration, error) {
			return srow.RunSubstrait(ctx, plan)
		})
		if err != nil {
			r.PlanErr = err.Error()
			break
		}
		pt = append(pt, d)
		if r.PlanDiff = Diff(got, want); r.PlanDiff != "" {
			break
		}
	}
	r.SrowPlan = median(pt)
	return r, nil
}

// startProfile starts a CPU profile into dir/q<n>.pprof (nothing when dir
// is ""); the returned function stops it.
func startProfile(dir string, n int) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	return startProfileFile(dir, fmt.Sprintf("q%d.pprof", n))
}

// startProfileFile starts a CPU profile into dir/name; the returned
// function stops it.
func startProfileFile(dir, name string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// withTimeout runs one timed run under its own deadline (none when d is 0).
func withTimeout(ctx context.Context, d time.Duration, run func(context.Context) (*Answer, time.Duration, error)) (*Answer, time.Duration, error) {
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	return run(ctx)
}
