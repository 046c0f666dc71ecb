package difftest

// Frame EXCLUDE clauses (sql/window.go: stablerow's frame-exclude
// option): drawn on a third of the framed windows' frames. The rows an
// exclusion leaves out are the current row or its whole peer group, so a
// frame of whole peer groups (RANGE, GROUPS, a window without ORDER BY)
// stays a set of rows the order of peers cannot change: deterministic for
// every call the generator draws without a total order. Under a total
// order there are no peers (GROUP is CURRENT ROW, TIES is NO OTHERS).

// withExclude is frame, sometimes with an EXCLUDE clause.
func (g *Gen) withExclude(frame string) string {
	if frame == "" || !g.p(0.35) {
		return frame
	}
	return frame + " EXCLUDE " + pick(g, []string{"CURRENT ROW", "GROUP", "TIES", "NO OTHERS"})
}
