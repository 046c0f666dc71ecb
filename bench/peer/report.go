package peer

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Report is a benchmark run written for people: the setting, then one table
// row per Result, then the plans each engine used.
type Report struct {
	Title   string
	Setting []string // "key: value" lines: machine, date, command, versions
	Notes   []string // paragraphs printed after the tables
	Results []*Result
	Setup   []SetupStep // untimed preparation, printed as its own table
	Facts   []string    // other measurements (on-disk bytes, ...), a list
}

// SetupStep is one preparation step (load, index build, delete) that the
// report lists with how long it took, once per table size.
type SetupStep struct {
	Rows int
	Step string
	Took time.Duration
}

// engines lists the engine names of all results in order of first use. The
// first is the subject (stablerow); ratios compare it with the best other.
func (r *Report) engines() []string {
	var names []string
	for _, res := range r.Results {
		for _, n := range res.Engines {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// WriteMarkdown writes the report as markdown.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	if r.Title != "" {
		fmt.Fprintf(&b, "## %s\n\n", r.Title)
	}
	for _, s := range r.Setting {
		fmt.Fprintf(&b, "- %s\n", s)
	}
	if len(r.Setting) > 0 {
		b.WriteString("\n")
	}
	names := r.engines()
	// One ratio column per peer family: stablerow over that peer's best
	// variant in the row (its best configuration).
	var families []string
	for _, n := range names[1:] {
		if f := Family(n); f != Family(names[0]) && !slices.Contains(families, f) {
			families = append(families, f)
		}
	}
	b.WriteString("| workload | rows | list | result rows (hits) |")
	for _, n := range names {
		fmt.Fprintf(&b, " %s |", n)
	}
	for _, f := range families {
		fmt.Fprintf(&b, " %s / best %s |", names[0], f)
	}
	b.WriteString("\n| --- | ---: | ---: | ---: |")
	for range names {
		b.WriteString(" ---: |")
	}
	for range families {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, res := range r.Results {
		hits := fmt.Sprint(res.Len)
		if res.Query.Kind != KindInK {
			hits = fmt.Sprintf("%d (%d)", res.Len, res.Hits)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |", res.Workload, count(res.Rows), count(res.Query.Size()), hits)
		for _, n := range names {
			if i := slices.Index(res.Engines, n); i >= 0 {
				fmt.Fprintf(&b, " %s |", fmtDur(res.Median(i)))
			} else {
				b.WriteString(" — |")
			}
		}
		for _, f := range families {
			fmt.Fprintf(&b, " %s |", ratio(res.Best(names[0]), res.Best(f)))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nPlans (from each engine's own EXPLAIN [ANALYZE] of the same query):\n\n")
	b.WriteString("| workload | rows | list | engine | plan |\n| --- | ---: | ---: | --- | --- |\n")
	for _, res := range r.Results {
		for i, n := range res.Engines {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", res.Workload, count(res.Rows), count(res.Query.Size()), n,
				strings.ReplaceAll(res.Plans[i], "|", `\|`))
		}
	}
	r.writeSetup(&b)
	if len(r.Facts) > 0 {
		b.WriteString("\nOther measurements:\n\n")
		for _, f := range r.Facts {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\n%s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSetup prints the setup steps: one row per step, one column per
// table size.
func (r *Report) writeSetup(b *strings.Builder) {
	if len(r.Setup) == 0 {
		return
	}
	var steps []string
	var sizes []int
	took := map[string]map[int]time.Duration{}
	for _, s := range r.Setup {
		if !slices.Contains(steps, s.Step) {
			steps = append(steps, s.Step)
			took[s.Step] = map[int]time.Duration{}
		}
		if !slices.Contains(sizes, s.Rows) {
			sizes = append(sizes, s.Rows)
		}
		took[s.Step][s.Rows] = s.Took
	}
	b.WriteString("\nSetup, not part of the timings above:\n\n| step |")
	for _, n := range sizes {
		fmt.Fprintf(b, " %s rows |", count(n))
	}
	b.WriteString("\n| --- |")
	for range sizes {
		b.WriteString(" ---: |")
	}
	b.WriteString("\n")
	for _, st := range steps {
		fmt.Fprintf(b, "| %s |", st)
		for _, n := range sizes {
			if d, ok := took[st][n]; ok {
				fmt.Fprintf(b, " %s |", d.Round(10*time.Millisecond))
			} else {
				b.WriteString(" — |")
			}
		}
		b.WriteString("\n")
	}
}

// Best is the lowest median of the engines of family f in the result (0
// when none ran).
func (r *Result) Best(f string) time.Duration {
	var best time.Duration
	for i, n := range r.Engines {
		if Family(n) != f {
			continue
		}
		if m := r.Median(i); best == 0 || m < best {
			best = m
		}
	}
	return best
}

// ratio prints subject/other, and how many times faster the subject is.
func ratio(subject, other time.Duration) string {
	if subject <= 0 || other <= 0 {
		return "—"
	}
	q := float64(subject) / float64(other)
	if q <= 1 {
		return fmt.Sprintf("%.3f (%.1f× faster)", q, 1/q)
	}
	return fmt.Sprintf("%.3f (%.1f× slower)", q, q)
}

// count prints 1000000 as 1M and 10000 as 10K when exact.
func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dK", n/1000)
	}
	return fmt.Sprint(n)
}

// fmtDur prints a latency in milliseconds with three significant digits.
func fmtDur(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	case ms >= 1:
		return fmt.Sprintf("%.2f ms", ms)
	}
	return fmt.Sprintf("%.3f ms", ms)
}
