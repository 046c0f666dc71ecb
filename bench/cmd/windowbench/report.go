package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// report collects each query's samples of both engines.
type report struct {
	config
	lines []string
	diffs []string
}

func median[T int64 | time.Duration](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func (r *report) add(q query, res map[string][]sample) {
	stat := func(e string) (wall, cpu time.Duration, rss int64) {
		var ws, cs []time.Duration
		var rs []int64
		for _, s := range res[e] {
			ws, cs, rs = append(ws, s.Wall), append(cs, s.cpu), append(rs, s.rssKiB)
		}
		return median(ws), median(cs), slices.Max(rs)
	}
	sw, sc, sr := stat(engineSrow)
	dw, dc, dr := stat(engineDuck)
	answer := "equal"
	for _, e := range []string{engineSrow, engineDuck} {
		for _, s := range res[e] {
			if !slices.Equal(s.Row, res[engineSrow][0].Row) {
				answer = "DIFFERENT"
				r.diffs = append(r.diffs, fmt.Sprintf("%s: %s %v, stablerow %v", q.name, e, s.Row, res[engineSrow][0].Row))
			}
		}
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Millisecond)) }
	r.lines = append(r.lines, fmt.Sprintf("| %s | %s | %s | %s | %.2f | %s | %s | %d | %d |", q.name, answer,
		ms(sw), ms(dw), float64(sw)/float64(dw), ms(sc), ms(dc), sr/1024, dr/1024))
}

func (r *report) markdown(w io.Writer) {
	host, _ := os.Hostname()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(w, "Window functions on %d rows (1000 partitions), threads %d, memory_limit %s on both engines; %d runs per query and engine, each a fresh process, the engines alternated per run; medians (peak RSS: the largest). Machine %s, %d CPUs (%s/%s), load %s.\n\n",
		r.rows, r.threads, r.mem, r.reps, host, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, strings.TrimSpace(string(load)))
	fmt.Fprintln(w, "| query | answers | stablerow ms | DuckDB ms | ratio | stablerow CPU ms | DuckDB CPU ms | stablerow peak RSS MiB | DuckDB peak RSS MiB |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, l := range r.lines {
		fmt.Fprintln(w, l)
	}
	for _, d := range r.diffs {
		fmt.Fprintln(w, "\nDIFFERENT:", d)
	}
}
