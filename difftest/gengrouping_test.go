package difftest

import (
	"strings"
	"testing"
)

// TestGeneratorDrawsGroupingSets: the generated cases hold every grouping
// set form (gengrouping.go), GROUPING() of key expressions, and FILTER on
// plain and DISTINCT aggregates and count(*).
func TestGeneratorDrawsGroupingSets(t *testing.T) {
	seen := map[string]int{}
	for i := 0; i < 3000; i++ {
		sql := caseGen(1, i).Case().Query.SQL()
		for _, k := range []string{"ROLLUP (", "CUBE (", "GROUPING SETS (", "()", "GROUPING(", ") FILTER (WHERE", "(*) FILTER (WHERE", "(DISTINCT ", "percentile_cont(", "percentile_disc(", "mode() WITHIN GROUP (ORDER BY"} {
			if strings.Contains(sql, k) {
				seen[k]++
			}
		}
		if strings.Contains(sql, "GROUPING(") && !strings.Contains(sql, "GROUP BY") {
			t.Errorf("GROUPING() without GROUP BY: %s", sql)
		}
	}
	for _, k := range []string{"ROLLUP (", "CUBE (", "GROUPING SETS (", "()", "GROUPING(", ") FILTER (WHERE", "(*) FILTER (WHERE", "percentile_cont(", "percentile_disc(", "mode() WITHIN GROUP (ORDER BY"} {
		if seen[k] == 0 {
			t.Errorf("no %q in 3000 cases: %v", k, seen)
		}
	}
}
