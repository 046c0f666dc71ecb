package difftest

import (
	"strings"
	"testing"
)

// TestGeneratorDrawsPostponedShapes: the generated cases hold the shapes
// of genpostpone.go: select items of more and of fewer than 11 operator
// calls under ORDER BY ... LIMIT, UNNEST ... WITH ORDINALITY ordered by a
// constant and the ordinality column under LIMIT, and a constant beyond
// double precision in a CASE arm or COALESCE argument PostgreSQL drops.
func TestGeneratorDrawsPostponedShapes(t *testing.T) {
	seen := map[string]int{}
	calls := func(e *Expr) int {
		n := 0
		for ; e.Op == "bin" && len(e.Args) == 2; e = e.Args[0] {
			n++
		}
		return n
	}
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e == nil {
			return
		}
		if e.Op == "case" || e.Op == "coalesce" {
			for _, a := range e.Args {
				if a.Op == "cmp" && (strings.Contains(a.Args[0].Text, "e-400") || strings.Contains(a.Args[0].Text, "e400") ||
					strings.Contains(a.Args[1].Text, "e-400") || strings.Contains(a.Args[1].Text, "e400")) {
					seen["wide:"+e.Op]++
				}
			}
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	for i := 0; i < 3000; i++ {
		c := caseGen(1, i).Case()
		q := c.Query
		for _, e := range q.Select {
			walk(e)
			if q.Limit >= 0 && len(q.OrderBy) > 0 {
				switch n := calls(e); {
				case n >= 11:
					seen["limit:expensive"]++
				case n >= 9:
					seen["limit:cheap"]++
				}
			}
		}
		walk(q.Where)
		if q.From.Kind == FromUnnest && q.From.T1 == "" && q.Limit >= 0 && len(q.OrderBy) == 1 && q.OrderBy[0].E.Op == "cast" {
			seen["limit:ordinality"]++
		}
		for _, es := range c.DMLExprs {
			for _, e := range es {
				walk(e)
			}
		}
	}
	for _, k := range []string{"limit:expensive", "limit:cheap", "limit:ordinality", "wide:case", "wide:coalesce"} {
		if seen[k] == 0 {
			t.Errorf("3000 cases draw no %s (seen %v)", k, seen)
		}
	}
	t.Logf("3000 cases: %v", seen)
}
