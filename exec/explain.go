package exec

import (
	"fmt"
	"math"
	"strings"
)

// Explain renders the plan as an indented tree, one node per line,
// "01)Root: ...\n02)  Child: ...". With analyze it appends metrics.
func Explain(n Node, analyze bool) string { return ExplainEstimates(n, analyze, nil) }

// ExplainEstimates is Explain with each node's estimated output rows
// (rows=N, rounded as PostgreSQL's clamp_row_est: at least 1) where est
// has one, before its metrics: EXPLAIN (COSTS) shows the planner's
// estimates, EXPLAIN (ANALYZE, COSTS) each node's estimate beside its
// actual output_rows.
func ExplainEstimates(n Node, analyze bool, est map[Node]float64) string {
	var b strings.Builder
	line := 0
	// never: n is under a one-time FALSE filter, so it never ran and has
	// no metrics to show (PostgreSQL's "(never executed)").
	var walk func(n Node, depth int, never bool)
	walk = func(n Node, depth int, never bool) {
		line++
		fmt.Fprintf(&b, "%02d)%s%s", line, strings.Repeat("  ", depth), n.String())
		if e, ok := est[n]; ok {
			fmt.Fprintf(&b, ", rows=%.0f", max(math.Round(e), 1))
		}
		switch {
		case analyze && never:
			b.WriteString(" (never executed)")
		case analyze:
			fmt.Fprintf(&b, ", metrics=[%s]", n.Metrics().String())
		}
		b.WriteByte('\n')
		for _, c := range n.Children() {
			walk(c, depth+1, never || NeverExecuted(n))
		}
	}
	walk(n, 0, false)
	return b.String()
}
