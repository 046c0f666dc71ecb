package difftest

import (
	"regexp"
	"strings"
	"testing"
)

var decimalConst = regexp.MustCompile(`[0-9]\.[0-9]`)

// TestGeneratorDrawsSeriesTypes: seed 1's CI-sized run holds numeric and
// timestamp generate_series (gen_gen28.go) and LEFT JOIN LATERAL of a
// function ON a condition other than TRUE.
func TestGeneratorDrawsSeriesTypes(t *testing.T) {
	var num, ts, leftOn int
	for i := 0; i < 3000; i++ {
		q := caseGen(1, i).Case().Query
		if q == nil || q.From.Kind != FromLateral || !strings.Contains(q.From.T1, "generate_series") {
			continue
		}
		j := q.From.T1
		switch {
		case strings.Contains(j, "INTERVAL"):
			ts++
		case strings.Contains(j, "NUMERIC") || decimalConst.MatchString(j):
			num++
		}
		if strings.Contains(j, "LEFT JOIN LATERAL") && !strings.HasSuffix(j, " ON TRUE") {
			leftOn++
		}
	}
	if num < 3 || ts < 3 || leftOn < 3 {
		t.Errorf("3000 cases: %d numeric, %d timestamp series, %d LEFT ... ON a condition", num, ts, leftOn)
	}
}
