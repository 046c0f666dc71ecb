package difftest

import "fmt"

// GROUPS frames (sql/window.go: ROWS bounds with stablerow's frame-mode
// option): drawn in a fifth of the framed windows with an ORDER BY. A
// GROUPS frame holds whole peer groups, as a RANGE frame does, so it is
// deterministic for every call the generator frames without a total
// order, as RANGE is.

// frameOrGroups draws a GROUPS frame, or frame's.
func (g *Gen) frameOrGroups(total, rangeKey, ordered bool) string {
	if !ordered || !g.p(0.2) {
		return g.frame(total, rangeKey)
	}
	off := func() int { return g.between(0, 3) }
	return pick(g, []string{
		fmt.Sprintf("GROUPS BETWEEN %d PRECEDING AND %d FOLLOWING", off(), off()),
		fmt.Sprintf("GROUPS BETWEEN %d PRECEDING AND CURRENT ROW", off()),
		fmt.Sprintf("GROUPS BETWEEN CURRENT ROW AND %d FOLLOWING", off()),
		fmt.Sprintf("GROUPS %d PRECEDING", off()),
		fmt.Sprintf("GROUPS BETWEEN %d FOLLOWING AND UNBOUNDED FOLLOWING", off()),
	})
}
