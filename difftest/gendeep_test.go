package difftest

import (
	"strings"
	"testing"
)

// TestGeneratorDrawsDeepSubqueries: some generated cases hold a
// subquery three levels deep whose innermost level reads the first
// level's row (gendeep.go).
func TestGeneratorDrawsDeepSubqueries(t *testing.T) {
	n := 0
	for i := 0; i < 3000; i++ {
		q := caseGen(1, i).Case().Query
		if q == nil {
			continue
		}
		if sql := q.SQL(); strings.Contains(sql, " AS d3 WHERE ") {
			n++
		}
		g := caseGen(1, i)
		ts := g.Tables()
		if v := g.deepSubquery(ts, tableScope(ts[0], "a")); v != nil && v.Type != TBool {
			t.Fatalf("a deep subquery of type %v: %s", v.Type, v.SQL())
		}
	}
	if n < 10 {
		t.Errorf("3000 cases: %d with a third-level subquery", n)
	}
}
