package peer

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// WriteSummary writes the claims table of a report: one row per result at
// table size rows whose list length is in lists (every IN-list and cold
// row too), with stablerow's median, each peer's best variant (named) and
// the ratio, then the command and machine columns, for BENCHMARKS.md.
func (r *Report) WriteSummary(w io.Writer, rows int, lists []int, command, machine string) error {
	names := r.engines()
	if len(names) == 0 {
		return fmt.Errorf("peer: empty report: %w", ErrInvalidArgument)
	}
	var families []string
	for _, n := range names[1:] {
		if f := Family(n); f != Family(names[0]) && !slices.Contains(families, f) {
			families = append(families, f)
		}
	}
	var b strings.Builder
	b.WriteString("| what | rows | list | " + names[0] + " |")
	for _, f := range families {
		fmt.Fprintf(&b, " best %s (variant) | %s / %s |", f, names[0], f)
	}
	b.WriteString(" command | machine |\n| --- | ---: | ---: | ---: |")
	for range families {
		b.WriteString(" ---: | --- |")
	}
	b.WriteString(" --- | --- |\n")
	for _, res := range r.Results {
		if res.Rows != rows || (!slices.Contains(lists, res.Query.Size()) && res.Query.Kind != KindInK) {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |", res.Workload, count(res.Rows), count(res.Query.Size()), fmtDur(res.Best(names[0])))
		for _, f := range families {
			best, variant := time.Duration(0), ""
			for i, n := range res.Engines {
				if Family(n) == f && (best == 0 || res.Median(i) < best) {
					best, variant = res.Median(i), n
				}
			}
			if best == 0 {
				b.WriteString(" — | — |")
				continue
			}
			fmt.Fprintf(&b, " %s (%s) | %s |", fmtDur(best), variant, ratio(res.Best(names[0]), best))
		}
		fmt.Fprintf(&b, " %s | %s |\n", command, machine)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
