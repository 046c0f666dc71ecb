package difftest

import (
	"slices"
	"testing"
)

// TestGeneratorDrawsLiterals: the generated cases hold issue 26's shapes,
// decimal and exponent constants (cast and compared), a NULL constant
// beside an operand that can raise, NULL IN lists of such operands, and
// a HAVING PostgreSQL folds to FALSE or NULL.
func TestGeneratorDrawsLiterals(t *testing.T) {
	seen := map[string]int{}
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e == nil {
			return
		}
		for _, a := range e.Args {
			if a.Op == "lit" && slices.Contains(decimalPool, a.Text) {
				seen["decimal:"+e.Op]++
			}
			if isNullLit(a) && !a.Raises {
				for _, b := range e.Args {
					if b.Raises && (e.Op == "cmp" || e.Op == "in" || e.Op == "notin") {
						seen["null-beside-raising:"+e.Op]++
					}
				}
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
		if h := q.Having; h != nil && (h.Op == "isnotnull" || h.Op == "lit" && h.Text == "FALSE" || h.Op == "cmp" && isNullLit(h.Args[0])) {
			seen["having:const"]++
		}
		for _, es := range c.DMLExprs {
			for _, e := range es {
				walk(e)
			}
		}
	}
	for _, k := range []string{"decimal:cast", "decimal:cmp", "null-beside-raising:cmp", "null-beside-raising:in", "null-beside-raising:notin", "having:const"} {
		if seen[k] == 0 {
			t.Errorf("2000 cases draw no %s (seen %v)", k, seen)
		}
	}
}
