package difftest

import (
	"strings"
	"testing"
)

// TestGeneratorDrawsFrameExclusions: some generated windows have a frame
// with each EXCLUDE clause (genwinexclude.go).
func TestGeneratorDrawsFrameExclusions(t *testing.T) {
	n := map[string]int{}
	for i := 0; i < 6000; i++ {
		q := caseGen(29, i).Case().Query
		if q == nil {
			continue
		}
		for _, x := range []string{"CURRENT ROW", "GROUP", "TIES", "NO OTHERS"} {
			if strings.Contains(q.SQL(), " EXCLUDE "+x) {
				n[x]++
			}
		}
	}
	for _, x := range []string{"CURRENT ROW", "GROUP", "TIES", "NO OTHERS"} {
		if n[x] < 5 {
			t.Errorf("6000 cases: %d with EXCLUDE %s", n[x], x)
		}
	}
}
