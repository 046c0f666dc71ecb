package difftest

import (
	"regexp"
	"testing"
)

// TestGeneratorDrawsRowIn: some generated cases hold a row [NOT] IN a
// subquery of two or three columns (genrowin.go).
func TestGeneratorDrawsRowIn(t *testing.T) {
	rowIn := regexp.MustCompile(`IN \(SELECT [^F]*, [^F]* FROM t`) // two items or more
	n := 0
	for i := 0; i < 3000; i++ {
		c := caseGen(1, i).Case()
		if c.Query != nil && rowIn.MatchString(c.Query.SQL()) {
			n++
		}
	}
	if n < 10 {
		t.Errorf("3000 cases: %d with a row IN a subquery", n)
	}
}
