package difftest

import (
	"strings"
	"testing"
)

// TestGeneratorDrawsOnSubquery: some generated joins carry a subquery in
// their ON (genonsub.go), of every join type, and some of the outer
// joins' subqueries read the left side (a.).
func TestGeneratorDrawsOnSubquery(t *testing.T) {
	n, byType, leftReading := 0, map[string]int{}, 0
	for i := 0; i < 3000; i++ {
		q := caseGen(1, i).Case().Query
		if q == nil || q.From.Kind != FromJoin || q.From.OnAnd == nil || !strings.Contains(q.From.OnAnd.SQL(), "SELECT") {
			continue
		}
		n++
		byType[q.From.Join]++
		if sql := q.From.OnAnd.SQL(); q.From.Join != "" && strings.Contains(sql[strings.Index(sql, "SELECT"):], "a.") {
			leftReading++
		}
	}
	if n < 10 || byType["LEFT"] < 3 || byType["RIGHT"] < 1 || byType["FULL"] < 1 || leftReading < 1 {
		t.Errorf("3000 cases: %d joins with a subquery in ON (by type %v), %d outer joins' reading the left side", n, byType, leftReading)
	}
}
