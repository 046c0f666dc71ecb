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
	var walk func(n Node, depth int)
	walk = func(n Node, depth int) {
		line++
		fmt.Fprintf(&b, "%02d)%s%s", line, strings.Repeat("  ", depth), n.String())
		if analyze {
			fmt.Fprintf(&b, ", metrics=[%s]", n.Metrics().String())
		}
		b.WriteByte('\n')
		for _, c := range n.Children() {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}
