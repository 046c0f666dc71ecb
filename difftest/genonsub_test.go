package difftest

import (
	"strings"
	"testing"
)

// TestGeneratorDrawsOnSubquery: some generated joins carry a subquery in
// their ON (genonsub.go), LEFT joins among them.
func TestGeneratorDrawsOnSubquery(t *testing.T) {
	n, left := 0, 0
	for i := 0; i < 3000; i++ {
		q := caseGen(1, i).Case().Query
		if q == nil || q.From.Kind != FromJoin || q.From.OnAnd == nil || !strings.Contains(q.From.OnAnd.SQL(), "SELECT") {
			continue
		}
		n++
		if q.From.Join == "LEFT" {
			left++
		}
	}
	if n < 10 || left < 3 {
		t.Errorf("3000 cases: %d joins with a subquery in ON, %d of them LEFT", n, left)
	}
}
