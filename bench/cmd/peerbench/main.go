package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stablerow/stablerow/bench/peer"
)

// config is the parsed command line.
type config struct {
	rows      []int
	ids       []int
	keys      []int
	maxKeyOps int64 // skip an IN-list case when rows*keys exceeds this
	runs      int
	bigRuns   int // runs of cases with >= bigIDs ids
	seed      uint64
	threads   int
	dir       string
	out       string
	plot      string
	summary   string
	plotFrom  string
	// lanceMaxIDsRewritten caps the id lists LanceDB runs after update +
	// compaction (its takes there cost ~0.2 s per query per 1M rows).
	lanceMaxIDsRewritten int
	quick                bool
	recluster            bool
	lance                string // bench/lance directory ("" : no LanceDB)
	// duckThreshold is the tuned DuckDB variant's dynamic_or_filter_threshold
	// and index_scan_max_count.
	duckThreshold int
}

const bigIDs = 1_000_000

func parseInts(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(strings.ReplaceAll(f, "_", ""))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad number %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseFlags(args []string) (*config, error) {
	fs := flag.NewFlagSet("peerbench", flag.ContinueOnError)
	rows := fs.String("rows", "1000000,10000000", "table sizes, comma-separated")
	ids := fs.String("ids", "10,100,10000,1000000", "id list lengths of the take workloads (10: below DuckDB's 50-id threshold for an ART index scan)")
	keys := fs.String("keys", "10,100", "key list lengths of the k IN-list workload")
	c := &config{}
	fs.Int64Var(&c.maxKeyOps, "max-key-ops", 2_000_000_000, "skip IN-list cases with rows*keys above this (bounds DuckDB's and the fallback's scan cost)")
	fs.IntVar(&c.runs, "runs", 5, "timed runs per engine and case")
	fs.IntVar(&c.bigRuns, "big-runs", 3, "timed runs for cases with 1M or more ids")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the id and key lists")
	fs.IntVar(&c.threads, "threads", 0, "DuckDB threads (0: all cores)")
	fs.StringVar(&c.dir, "dir", "", "directory for the stablerow tables (default: a temporary one, removed)")
	fs.StringVar(&c.out, "out", "", "also write the markdown report to this file")
	fs.IntVar(&c.lanceMaxIDsRewritten, "lance-max-ids-rewritten", 10000, "longest id list LanceDB runs after update + compaction (longer lists run without it)")
	fs.StringVar(&c.plotFrom, "plot-from", "", "only draw -plot from this file, the stderr log of an earlier run (its per-case medians)")
	fs.StringVar(&c.summary, "summary", "", "also write the claims table (largest table size; 100, 10K and 1M lists) to this file")
	fs.StringVar(&c.plot, "plot", "", "write the latency plot (PNG) to this file")
	fs.BoolVar(&c.recluster, "recluster", true, "also measure the takes after a recluster by k (remap deferred) and after OptimizeIndex")
	fs.StringVar(&c.lance, "lance", "lance", "directory of the LanceDB peer (bench/lance, after `npm ci` there); \"\" leaves LanceDB out")
	fs.IntVar(&c.duckThreshold, "duck-threshold", 1000, "the tuned DuckDB variant's dynamic_or_filter_threshold and index_scan_max_count (DuckDB's defaults: 50 and 2048)")
	fs.BoolVar(&c.quick, "quick", false, "a ~1 minute run: 1M rows, 3 runs (1 for 1M ids), a 10-key IN-list")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if c.quick {
		*rows, *keys = "1000000", "10"
		c.runs, c.bigRuns = 3, 1
	}
	var err error
	if c.rows, err = parseInts(*rows); err != nil {
		return nil, err
	}
	if c.ids, err = parseInts(*ids); err != nil {
		return nil, err
	}
	if c.keys, err = parseInts(*keys); err != nil {
		return nil, err
	}
	if len(c.rows) == 0 || c.runs < 1 || c.bigRuns < 1 {
		return nil, errors.New("need at least one table size and one run")
	}
	return c, nil
}

func main() {
	c, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "peerbench:", err)
		os.Exit(2)
	}
	if c.plotFrom != "" {
		if err := replot(c); err != nil {
			fmt.Fprintln(os.Stderr, "peerbench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "peerbench: FAILED:", err)
		if errors.Is(err, peer.ErrMismatch) {
			fmt.Fprintln(os.Stderr, "peerbench: the engines returned different rows; no figures were written")
		}
		os.Exit(1)
	}
}

// run measures and writes the report to stdout (and the -out file).
func run(ctx context.Context, c *config, stdout io.Writer) error {
	start := time.Now()
	load0 := loadAvg()
	dir := c.dir
	if dir == "" {
		d, err := os.MkdirTemp("", "peerbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	rep := &peer.Report{Title: "stablerow vs DuckDB and LanceDB"}
	for _, n := range c.rows {
		s, err := benchSize(ctx, c, filepath.Join(dir, fmt.Sprintf("rows%d", n)), n)
		if err != nil {
			return err
		}
		rep.Results = append(rep.Results, s.results...)
		rep.Setup = append(rep.Setup, s.setup...)
		rep.Facts = append(rep.Facts, s.facts...)
	}
	rep.Setting = setting(c, time.Since(start), load0, loadAvg())
	rep.Notes = notesOf(c)
	var b strings.Builder
	if err := rep.WriteMarkdown(&b); err != nil {
		return err
	}
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return err
	}
	if c.out != "" {
		if err := os.WriteFile(c.out, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	if c.summary != "" {
		var sb strings.Builder
		cmd := "`cd bench && go run ./cmd/peerbench " + strings.Join(os.Args[1:], " ") + "`"
		if err := rep.WriteSummary(&sb, slices.Max(c.rows), []int{100, 10000, 1000000}, cmd, machine()); err != nil {
			return err
		}
		if err := os.WriteFile(c.summary, []byte(sb.String()), 0o644); err != nil {
			return err
		}
	}
	if c.plot != "" {
		if err := os.MkdirAll(filepath.Dir(c.plot), 0o755); err != nil {
			return err
		}
		f, err := os.Create(c.plot)
		if err != nil {
			return err
		}
		if err := peer.WritePlot(f, rep.Results, "take+payload"); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

// replot draws c.plot from the log c.plotFrom.
func replot(c *config) error {
	f, err := os.Open(c.plotFrom)
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := resultsFromLog(f)
	if err != nil {
		return err
	}
	if c.plot == "" {
		return errors.New("-plot-from needs -plot")
	}
	return writePlot(c.plot, res)
}

func writePlot(path string, results []*peer.Result) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := peer.WritePlot(f, results, "take+payload"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
