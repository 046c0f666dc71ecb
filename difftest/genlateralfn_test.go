package difftest

import (
	"strings"
	"testing"
)

// TestGeneratorDrawsLateralFunctions: seed 1's CI-sized run holds
// generate_series over an earlier FROM item (genlateralfn.go) in each
// join form, some WITH ORDINALITY.
func TestGeneratorDrawsLateralFunctions(t *testing.T) {
	forms := map[string]int{}
	ord := 0
	for i := 0; i < 3000; i++ {
		q := caseGen(1, i).Case().Query
		if q == nil || q.From.Kind != FromLateral || !strings.Contains(q.From.T1, "generate_series") {
			continue
		}
		j := q.From.T1
		for _, f := range []string{", generate_series", ", LATERAL generate_series", " CROSS JOIN LATERAL", " LEFT JOIN LATERAL", " JOIN LATERAL"} {
			if strings.HasPrefix(j, f) {
				forms[f]++
				break
			}
		}
		if strings.Contains(j, "WITH ORDINALITY") {
			ord++
		}
	}
	if len(forms) < 5 || ord < 3 {
		t.Errorf("3000 cases: forms %v, %d WITH ORDINALITY", forms, ord)
	}
}
