package difftest

import (
	"strings"
	"testing"
)

// TestGeneratorDrawsWindows: the generated cases hold window functions
// (genwindow.go) of every family, with and without a total order (the
// query's tiebreak keys last in the window's ORDER BY), with ROWS and
// RANGE offset frames, and a ranking function never carries a frame.
func TestGeneratorDrawsWindows(t *testing.T) {
	seen := map[string]int{}
	for i := 0; i < 3000; i++ {
		q := caseGen(1, i).Case().Query
		for _, e := range q.Select {
			if e.Op != "window" {
				continue
			}
			seen["window"]++
			name := e.Text[:strings.Index(e.Text, "(")]
			seen["fn:"+name]++
			if len(q.Tiebreak) > 0 && strings.Contains(e.Text, strings.Join(q.Tiebreak, ", ")+")") ||
				strings.Contains(e.Text, strings.Join(q.Tiebreak, ", ")+" ") {
				seen["total"]++
			}
			for _, f := range []string{"ROWS BETWEEN", "RANGE BETWEEN"} {
				if strings.Contains(e.Text, f) {
					seen[f]++
					if strings.Contains(e.Text, f) && strings.Contains(e.Text, "PRECEDING AND") && !strings.Contains(e.Text, "UNBOUNDED PRECEDING") {
						seen[f+" offset"]++
					}
				}
			}
			switch name {
			case "rank", "dense_rank", "row_number", "percent_rank", "cume_dist", "ntile", "lag", "lead":
				if strings.Contains(e.Text, "ROWS") || strings.Contains(e.Text, "RANGE") {
					t.Errorf("a frame on %s: %s", name, e.Text)
				}
			}
		}
	}
	for _, k := range []string{"window", "total", "fn:rank", "fn:row_number", "fn:lag", "fn:sum", "fn:min", "fn:nth_value", "fn:ntile",
		"ROWS BETWEEN offset", "RANGE BETWEEN offset"} {
		if seen[k] == 0 {
			t.Errorf("no %s in 3000 cases: %v", k, seen)
		}
	}
}
