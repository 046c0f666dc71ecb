package tpch

import (
	"fmt"
	"io"
	"math"
	"strings"
)

func ratioText(x float64) string {
	if x == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", x)
}

// flag is the paired table's last column: "OVER" for a query whose CPU
// ratio exceeds PairedLimit.
func (r *PairedResult) flag() string {
	if r.Over() {
		return "OVER"
	}
	return ""
}

// pairText is the median per-repetition ratio with its middle half.
func (r *PairedResult) pairText() string {
	if r.PairRatio == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", r.PairRatio, r.PairLo, r.PairHi)
}

func (r *PairedResult) line() string {
	return fmt.Sprintf("%-4s rows=%-5d answers=%s spec=%sms/%scpu text=%sms/%scpu cpu-ratio=%s pair-ratio=%s %s",
		r.Query.Name, r.Rows, status(r.Err, r.Diff), ms(r.SpecWall), ms(r.SpecCPU), ms(r.TextWall), ms(r.TextCPU),
		ratioText(r.CPURatio()), r.pairText(), r.flag())
}

// Over are the names of the queries whose CPU ratio exceeds PairedLimit.
func (rep *PairedReport) Over() []string {
	var out []string
	for _, r := range rep.Results {
		if r.Over() {
			out = append(out, r.Query.Name)
		}
	}
	return out
}

// GeoMeanCPURatio is the geometric mean of the queries' spec/text CPU
// ratios, and how many queries it covers (those both variants answered
// equally).
func (rep *PairedReport) GeoMeanCPURatio() (float64, int) {
	var l float64
	n := 0
	for _, r := range rep.Results {
		if x := r.CPURatio(); x > 0 && r.Err == "" && r.Diff == "" {
			l += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return math.Exp(l / float64(n)), n
}

// Markdown writes the paired report as a Markdown section body: the
// setting and a table, one row per query.
func (rep *PairedReport) Markdown(w io.Writer) {
	c := rep.Config
	fmt.Fprintf(w, "Scale factor %g (seed %d), stablerow threads=%d: the specification's DDL (spec: CHAR(n), VARCHAR(n), DECIMAL(15,2), DATE, INTEGER keys) against TEXT/BIGINT (text), two databases loaded from the same Parquet files (spec %.1f s, text %.1f s). ",
		c.SF, c.Seed, rep.SrowThreads, rep.LoadSpec.Seconds(), rep.LoadText.Seconds())
	fmt.Fprintf(w, "Per query one untimed run of each (answers compared), then %d repetitions of a spec and a text run back to back, the order flipped every repetition; medians. CPU is the process's user+system time during a run (getrusage), the fairer figure on a shared machine. The CPU ratio is the spec median over the text median, and a query is flagged OVER when it exceeds %.2f; the paired ratio is the median of each repetition's spec/text CPU ratio, with the lower and upper quartile of those ratios.\n\n",
		c.Reps, PairedLimit)
	fmt.Fprintln(w, "| query | rows | answers | spec ms | text ms | wall ratio | spec CPU ms | text CPU ms | CPU ratio | paired CPU ratio (middle half) | over 1.10 |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, r := range rep.Results {
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Query.Name, r.Rows, status(r.Err, r.Diff),
			ms(r.SpecWall), ms(r.TextWall), ratioText(r.WallRatio()), ms(r.SpecCPU), ms(r.TextCPU),
			ratioText(r.CPURatio()), r.pairText(), r.flag())
	}
	if g, n := rep.GeoMeanCPURatio(); n > 0 {
		fmt.Fprintf(w, "\nGeometric mean of the CPU ratios over %d queries: %.3f. ", n, g)
	}
	if over := rep.Over(); len(over) > 0 {
		fmt.Fprintf(w, "Over %.2f: %s.\n", PairedLimit, strings.Join(over, ", "))
	} else {
		fmt.Fprintf(w, "No query over %.2f.\n", PairedLimit)
	}
}
