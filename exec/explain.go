package exec

import (
	"fmt"
	"strings"
)

// Explain renders the plan as an indented tree, one node per line,
// "01)Root: ...\n02)  Child: ...". With analyze it appends metrics.
func Explain(n Node, analyze bool) string {
	var b strings.Builder
	line := 0
	// never: n is under a one-time FALSE filter, so it never ran and has
	// no metrics to show (PostgreSQL's "(never executed)").
	var walk func(n Node, depth int, never bool)
	walk = func(n Node, depth int, never bool) {
		line++
		fmt.Fprintf(&b, "%02d)%s%s", line, strings.Repeat("  ", depth), n.String())
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
