package tpch

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"
)

// DDLBoth is the paired comparison of the two sets of column types
// (RunPaired): not a DDL of its own, the -ddl value that selects it.
const DDLBoth = "both"

// PairedLimit is the largest spec/text CPU ratio a query may have (issue
// 26 item 1: the specification's DDL within 10% of TEXT/BIGINT); a query
// above it is flagged.
const PairedLimit = 1.10

// PairedResult is one query's outcome in the paired comparison: the
// specification's DDL (spec) against TEXT/BIGINT (text), on the same data.
type PairedResult struct {
	Query    Query
	Rows     int    // the text variant's row count
	Err      string // "": both variants ran every time
	Diff     string // "": the spec variant's answer equals the text variant's
	SpecWall time.Duration
	TextWall time.Duration
	SpecCPU  time.Duration
	TextCPU  time.Duration
	// PairRatio is the median over the repetitions of each repetition's
	// spec/text CPU ratio: the two runs of one repetition are adjacent, so
	// a burst of load from outside hits both more often than not.
	PairRatio float64
	// PairLo and PairHi bound the middle half of the per-repetition
	// ratios (the lower and upper quartile): how far apart the
	// repetitions are, against the 10% the target allows.
	PairLo, PairHi float64
}

// CPURatio is the spec variant's median CPU time over the text variant's
// (0 when not measured).
func (r *PairedResult) CPURatio() float64 { return ratio(r.SpecCPU, r.TextCPU) }

// WallRatio is the spec variant's median wall time over the text
// variant's.
func (r *PairedResult) WallRatio() float64 { return ratio(r.SpecWall, r.TextWall) }

// Over reports whether the query's spec/text CPU ratio exceeds
// PairedLimit.
func (r *PairedResult) Over() bool { return r.CPURatio() > PairedLimit }

func ratio(a, b time.Duration) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// PairedReport is a paired run's results and its setting.
type PairedReport struct {
	Config      Config
	SrowThreads int
	GenTime     time.Duration // 0: the files existed
	LoadSpec    time.Duration
	LoadText    time.Duration
	Results     []PairedResult
}

// pairOrder is the order of the two variants in repetition rep: spec
// first in even repetitions, text first in odd ones (ABBA…), so that
// neither always runs on the caches, heap and CPU frequency the other
// left behind.
func pairOrder(rep int) [2]string {
	if rep%2 == 0 {
		return [2]string{DDLSpec, DDLText}
	}
	return [2]string{DDLText, DDLSpec}
}

// RunPaired generates the data if missing, loads two stablerow databases
// from the same Parquet files, one with the specification's DDL and one
// with TEXT/BIGINT, and runs each query on both: one untimed run of each
// whose answers are compared, then cfg.Reps repetitions, each a run of
// both variants back to back in the order pairOrder gives. DuckDB is not
// loaded: the comparison is between stablerow's two variants, and the
// text variant's answers are checked against DuckDB by Run (make tpch,
// TestTPCH). cfg.DDL is ignored. With cfg.Profile, each variant's runs
// of a query are profiled after the timed runs, apart from them, into
// q<N>-spec.pprof and q<N>-text.pprof.
func RunPaired(ctx context.Context, cfg Config) (*PairedReport, error) {
	cfg = cfg.withDefaults()
	cfg.DDL = DDLBoth
	rep := &PairedReport{Config: cfg}
	data, genTime, err := ensureData(ctx, cfg)
	if err != nil {
		return nil, err
	}
	rep.GenTime = genTime
	dbs := map[string]*Srow{}
	for _, ddl := range []string{DDLSpec, DDLText} {
		start := time.Now()
		s, err := openSrowThreads(ctx, data, "", ddl, cfg)
		if err != nil {
			return nil, err
		}
		dbs[ddl] = s
		if ddl == DDLSpec {
			rep.LoadSpec = time.Since(start)
		} else {
			rep.LoadText = time.Since(start)
		}
	}
	rep.SrowThreads = dbs[DDLSpec].DB.Threads()
	fmt.Fprintf(cfg.Log, "loaded: spec %v, text %v\n", rep.LoadSpec.Round(time.Millisecond), rep.LoadText.Round(time.Millisecond))
	rep.Results, err = eachQuery(cfg, func(q Query) (PairedResult, error) {
		return runPair(ctx, cfg, dbs, q)
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// timedRun is one run of q on s: its answer, wall time and the process's
// CPU time during it. The garbage of earlier runs (of the other variant
// too) is collected first, outside the measurement, so that no run pays
// for another's.
func timedRun(ctx context.Context, cfg Config, s *Srow, q Query) (*Answer, time.Duration, time.Duration, error) {
	runtime.GC()
	cpu := processCPU()
	a, d, err := withTimeout(ctx, cfg.Timeout, func(ctx context.Context) (*Answer, time.Duration, error) {
		return s.Run(ctx, q.SQL)
	})
	return a, d, processCPU() - cpu, err
}

func runPair(ctx context.Context, cfg Config, dbs map[string]*Srow, q Query) (PairedResult, error) {
	r := PairedResult{Query: q}
	// The untimed first runs: the answers, and caches warm for both.
	answers := map[string]*Answer{}
	for _, ddl := range pairOrder(0) {
		a, _, _, err := timedRun(ctx, cfg, dbs[ddl], q)
		if err != nil {
			if ctx.Err() != nil {
				return r, ctx.Err()
			}
			r.Err = ddl + ": " + err.Error()
			return r, nil
		}
		answers[ddl] = a
	}
	r.Rows = len(answers[DDLText].Rows)
	if r.Diff = Diff(answers[DDLSpec], answers[DDLText]); r.Diff != "" {
		return r, nil
	}
	wall := map[string][]time.Duration{}
	cpu := map[string][]time.Duration{}
	var pairs []float64
	for i := range cfg.Reps {
		for _, ddl := range pairOrder(i) {
			_, d, c, err := timedRun(ctx, cfg, dbs[ddl], q)
			if err != nil {
				if ctx.Err() != nil {
					return r, ctx.Err()
				}
				r.Err = ddl + ": " + err.Error()
				return r, nil
			}
			wall[ddl], cpu[ddl] = append(wall[ddl], d), append(cpu[ddl], c)
		}
		if p := ratio(cpu[DDLSpec][i], cpu[DDLText][i]); p > 0 {
			pairs = append(pairs, p)
		}
	}
	r.SpecWall, r.TextWall = median(wall[DDLSpec]), median(wall[DDLText])
	r.SpecCPU, r.TextCPU = median(cpu[DDLSpec]), median(cpu[DDLText])
	r.PairRatio, r.PairLo, r.PairHi = quartiles(pairs)
	for _, ddl := range []string{DDLSpec, DDLText} {
		if err := profileRuns(ctx, cfg, dbs[ddl], q, ddl); err != nil {
			return r, err
		}
	}
	return r, nil
}

// quartiles are the median, lower and upper quartile of xs (sorted in
// place; all 0 when xs is empty): for 5 values the 3rd, 2nd and 4th.
func quartiles(xs []float64) (med, lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	slices.Sort(xs)
	n := len(xs)
	return xs[n/2], xs[n/4], xs[(3*n-1)/4]
}

// profileRuns runs q cfg.Reps times on s under a CPU profile written to
// cfg.Profile/q<N>-<ddl>.pprof (nothing without cfg.Profile).
func profileRuns(ctx context.Context, cfg Config, s *Srow, q Query, ddl string) error {
	if cfg.Profile == "" {
		return nil
	}
	stop, err := startProfileFile(cfg.Profile, fmt.Sprintf("q%d-%s.pprof", q.N, ddl))
	if err != nil {
		return err
	}
	defer stop()
	for range cfg.Reps {
		if _, _, _, err := timedRun(ctx, cfg, s, q); err != nil {
			return fmt.Errorf("%s, %s DDL, profiled: %w", q.Name, ddl, err)
		}
	}
	return nil
}
