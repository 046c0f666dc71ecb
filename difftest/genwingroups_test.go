package difftest

import (
	"strings"
	"testing"
)

// TestGeneratorDrawsGroupsFrames: some generated windows have a GROUPS
// frame (genwingroups.go).
func TestGeneratorDrawsGroupsFrames(t *testing.T) {
	n := 0
	for i := 0; i < 6000; i++ {
		if q := caseGen(29, i).Case().Query; q != nil && strings.Contains(q.SQL(), " GROUPS ") {
			n++
		}
	}
	if n < 10 {
		t.Errorf("6000 cases: %d with a GROUPS frame", n)
	}
}
