package difftest

import (
	"strings"
	"testing"
)

// TestGeneratorDrawsLongInLists: the generated cases hold IN and NOT IN
// lists above the SQL front end's cut-out length (64), with bare NULLs,
// integers beside decimals, and quoted strings among them.
func TestGeneratorDrawsLongInLists(t *testing.T) {
	seen := map[string]int{}
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e == nil {
			return
		}
		if (e.Op == "in" || e.Op == "notin") && len(e.Args) > 64 {
			seen["long:"+e.Op]++
			var ints, decs int
			for _, a := range e.Args[1:] {
				switch {
				case a.Text == "NULL":
					seen["null"]++
				case strings.HasPrefix(a.Text, "'"):
					seen["string"]++
				case strings.ContainsAny(a.Text, ".e"):
					decs++
				default:
					ints++
				}
			}
			if ints > 0 && decs > 0 {
				seen["mixed"]++
			}
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	for i := 0; i < 2000; i++ {
		c := caseGen(1, i).Case()
		q := c.Query
		for _, e := range q.Select {
			walk(e)
		}
		walk(q.Where)
		walk(q.Having)
	}
	for _, k := range []string{"long:in", "long:notin", "null", "string", "mixed"} {
		if seen[k] == 0 {
			t.Errorf("2000 cases draw no %s (seen %v)", k, seen)
		}
	}
	t.Log(seen)
}
