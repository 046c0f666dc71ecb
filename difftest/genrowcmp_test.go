package difftest

import (
	"regexp"
	"testing"
)

// TestGeneratorDrawsRowCompare: some generated cases compare rows
// (genrowcmp.go): with a row, with a one-row subquery, and with ANY/ALL
// (8000 cases: another generator drawing first shifts the counts).
func TestGeneratorDrawsRowCompare(t *testing.T) {
	forms := map[string]*regexp.Regexp{
		// A row on the right: "(" after the operator, a comma before any
		// parenthesis, no SELECT.
		"row": regexp.MustCompile(`\) (=|<>|<|>|<=|>=) \([^()S]*, `),
		// A subquery of two items or more compared (a scalar one has one).
		"subquery": regexp.MustCompile(`\) (=|<>|<|>|<=|>=) \(SELECT [^F]*, [^F]* FROM t`),
		"any/all":  regexp.MustCompile(`\) (=|<>|<|>|<=|>=) (ANY|ALL) \(SELECT [^F]*, [^F]* FROM t`),
	}
	seen := map[string]int{}
	for i := 0; i < 8000; i++ {
		c := caseGen(1, i).Case()
		if c.Query == nil {
			continue
		}
		sql := c.Query.SQL()
		for name, re := range forms {
			if re.MatchString(sql) {
				seen[name]++
			}
		}
	}
	if seen["subquery"] < 3 || seen["any/all"] < 3 || seen["row"] < 3 {
		t.Errorf("8000 cases: row comparisons drawn %v", seen)
	}
}
