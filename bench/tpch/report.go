package tpch

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

func ms(d time.Duration) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond))
}

func status(errText, diff string) string {
	switch {
	case errText != "":
		return "error: " + oneLine(errText, 90)
	case diff != "":
		return "DIFF: " + oneLine(diff, 90)
	}
	return "equal"
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "|", "\\|")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func (r *Result) line() string {
	return fmt.Sprintf("%-4s rows=%-5d sql=%s plan=%s stablerow=%sms cpu=%sms plan=%sms duckdb=%sms peak_rss=%s spill_peak=%s",
		r.Query.Name, r.Rows, status(r.SQLErr, r.SQLDiff), status(r.PlanErr, r.PlanDiff), ms(r.Srow), ms(r.SrowCPU), ms(r.SrowPlan), ms(r.Duck), mib(r.PeakRSS), mib(r.SpillPeak))
}

func mib(n int64) string { return fmt.Sprintf("%.0fMiB", float64(n)/(1<<20)) }

// GeoMeans are the geometric means of the median times of the queries
// both engines answered equally, and how many those are.
func (rep *Report) GeoMeans() (srow, duck time.Duration, n int) {
	var ls, ld float64
	for _, r := range rep.Results {
		if r.SQLErr != "" || r.SQLDiff != "" || r.Srow == 0 || r.Duck == 0 {
			continue
		}
		ls += math.Log(float64(r.Srow))
		ld += math.Log(float64(r.Duck))
		n++
	}
	if n == 0 {
		return 0, 0, 0
	}
	return time.Duration(math.Exp(ls / float64(n))), time.Duration(math.Exp(ld / float64(n))), n
}

// Markdown writes the report as a Markdown section body: the setting and a
// table, one row per query.
func (rep *Report) Markdown(w io.Writer) {
	c := rep.Config
	fmt.Fprintf(w, "Scale factor %g (seed %d), %s DDL, %d timed run(s) per query and engine, medians. DuckDB %s, threads=%s (its default: the cores); stablerow threads=%d. ",
		c.SF, c.Seed, c.DDL, c.Reps, rep.DuckVersion, rep.DuckThreads, rep.SrowThreads)
	fmt.Fprintf(w, "Load from the same Parquet files: DuckDB %s ms, stablerow %s ms.", ms(rep.LoadDuck), ms(rep.LoadSrow))
	if c.MemoryLimit > 0 {
		fmt.Fprintf(w, " memory_limit %s on both.", mib(c.MemoryLimit))
	}
	if c.DBDir != "" {
		fmt.Fprint(w, " Both databases on disk. Peak RSS: the process's (both engines) after the query; spill peak: the most bytes stablerow's spill directory held, sampled every 200 ms.")
	}
	fmt.Fprint(w, "\n\n")
	fmt.Fprintln(w, "| query | rows | from SQL | from Substrait (binary) | stablerow ms | stablerow CPU ms | stablerow (Substrait) ms | DuckDB ms | ratio | peak RSS | spill peak |")
	fmt.Fprintln(w, "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rep.Results {
		planStatus := status(r.PlanErr, r.PlanDiff)
		if c.NoPlans {
			planStatus = "not run"
		}
		ratio := "–"
		if r.Srow > 0 && r.Duck > 0 && r.SQLErr == "" {
			ratio = fmt.Sprintf("%.1f×", float64(r.Srow)/float64(r.Duck))
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Query.Name, r.Rows,
			status(r.SQLErr, r.SQLDiff), planStatus, ms(r.Srow), ms(r.SrowCPU), ms(r.SrowPlan), ms(r.Duck), ratio, mib(r.PeakRSS), mib(r.SpillPeak))
	}
	s, d, n := rep.GeoMeans()
	if n > 0 {
		fmt.Fprintf(w, "\nGeometric mean over the %d queries stablerow answers equally from SQL: stablerow %s ms, DuckDB %s ms, ratio %.2f×.\n",
			n, ms(s), ms(d), float64(s)/float64(d))
	}
}
