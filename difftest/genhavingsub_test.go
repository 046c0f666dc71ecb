package difftest

import (
	"strings"
	"testing"
)

// TestGeneratorDrawsHavingSubqueries: some generated grouped queries
// hold a subquery in HAVING correlated to a group key by its qualified
// name, and some an aggregate compared with ANY/ALL (genhavingsub.go).
func TestGeneratorDrawsHavingSubqueries(t *testing.T) {
	corr, anyAll := 0, 0
	for i := 0; i < 3000; i++ {
		q := caseGen(1, i).Case().Query
		if q == nil || q.Having == nil {
			continue
		}
		h := q.Having.SQL()
		if strings.Contains(h, "FROM") && strings.Contains(h, " a.") {
			corr++
		}
		if strings.Contains(h, " ANY (SELECT") || strings.Contains(h, " ALL (SELECT") {
			anyAll++
		}
	}
	if corr < 5 || anyAll < 5 {
		t.Errorf("3000 cases: %d HAVING subqueries correlated to a key, %d aggregates op ANY/ALL", corr, anyAll)
	}
}
