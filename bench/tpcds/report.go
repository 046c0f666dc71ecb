package tpcds

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

func (r *Result) status() string {
	switch {
	case r.Err != "":
		return "error: " + oneLine(r.Err, 110)
	case r.Diff != "":
		return "DIFF: " + oneLine(r.Diff, 110)
	case r.Reordered:
		return "equal (ties in another order)"
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
	return fmt.Sprintf("%-4s rows=%-5d %s stablerow=%sms duckdb=%sms", r.Query.Name, r.Rows, r.status(), ms(r.Srow), ms(r.Duck))
}

// GeoMeans are the geometric means of the median times of the queries
// stablerow answered as DuckDB did, and how many those are.
func (rep *Report) GeoMeans() (srow, duck time.Duration, n int) {
	var ls, ld float64
	for _, r := range rep.Results {
		if !r.Equal() || r.Srow == 0 || r.Duck == 0 {
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

// Markdown writes the report: the setting, one row per query, the
// geometric means.
func (rep *Report) Markdown(w io.Writer) {
	c := rep.Config
	fmt.Fprintf(w, "TPC-DS scale factor %g (seed %d, bench/tpcds's generator), %d timed run(s) per query and engine (alternating which runs first), medians. DuckDB %s, threads=%s; stablerow threads=%d. ",
		c.SF, c.Seed, c.Reps, rep.DuckVersion, rep.DuckThreads, rep.SrowThreads)
	fmt.Fprintf(w, "Generation %s ms; load from the same Parquet files: DuckDB %s ms, stablerow %s ms.\n\n", ms(rep.GenTime), ms(rep.LoadDuck), ms(rep.LoadSrow))
	fmt.Fprintln(w, "| query | rows | answer | stablerow ms | DuckDB ms | ratio |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---:|")
	equal := 0
	for _, r := range rep.Results {
		ratio := "–"
		if r.Equal() {
			equal++
			if r.Srow > 0 && r.Duck > 0 {
				ratio = fmt.Sprintf("%.2f×", float64(r.Srow)/float64(r.Duck))
			}
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s |\n", r.Query.Name, r.Rows, r.status(), ms(r.Srow), ms(r.Duck), ratio)
	}
	fmt.Fprintf(w, "\n%d of %d queries answered as DuckDB did.", equal, len(rep.Results))
	if s, d, n := rep.GeoMeans(); n > 0 {
		fmt.Fprintf(w, " Geometric mean over those %d: stablerow %s ms, DuckDB %s ms, ratio %.2f×.", n, ms(s), ms(d), float64(s)/float64(d))
	}
	fmt.Fprintln(w)
}
