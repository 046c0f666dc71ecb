package difftest

import (
	"regexp"
	"testing"
)

// TestGeneratorDrawsSub28cShapes: generated cases hold each shape of
// gen_sub28c.go: a subquery whose join ON reads the outer row (of each
// join kind), LIKE/ILIKE ANY/ALL (subquery), and a subquery in GROUP BY.
func TestGeneratorDrawsSub28cShapes(t *testing.T) {
	shapes := map[string]*regexp.Regexp{
		"LEFT join ON":   regexp.MustCompile(`LEFT JOIN \w+ AS j ON`),
		"RIGHT join ON":  regexp.MustCompile(`RIGHT JOIN \w+ AS j ON`),
		"FULL join ON":   regexp.MustCompile(`FULL JOIN \w+ AS j ON`),
		"INNER join ON":  regexp.MustCompile(`INNER JOIN \w+ AS j ON`),
		"LIKE ANY":       regexp.MustCompile(`LIKE (ANY|ALL) \(SELECT`),
		"GROUP BY (sub)": regexp.MustCompile(`GROUP BY .*\(SELECT (count|max)\(`),
		"outer agg":      regexp.MustCompile(`AS oa WHERE \(oa\.\w+ \S+ (max|min|count)\(`),
	}
	n := map[string]int{}
	for i := 0; i < 3000; i++ {
		q := caseGen(1, i).Case().Query
		if q == nil {
			continue
		}
		sql := q.SQL()
		for name, re := range shapes {
			if re.MatchString(sql) {
				n[name]++
			}
		}
	}
	for name := range shapes {
		if n[name] < 3 {
			t.Errorf("3000 cases: %d with %s", n[name], name)
		}
	}
	t.Logf("%v", n)
}
