package sql

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// A FALSE HAVING reaches below the aggregate, as a FALSE filter over its
// input, exactly where PostgreSQL's subquery_planner moves or copies it
// into the WHERE: a plain GROUP BY (also grouping sets that parse analysis
// reduces to one, parseCheckAggregates), no GROUP BY, or sets that are all
// (). Under real grouping sets it stays in the HAVING and every row is
// aggregated (difftest seed 20261230 case 31349).
func TestHavingMoveFollowsGroupingSets(t *testing.T) {
	for sql, moved := range map[string]bool{
		"SELECT avg(id * id) FROM t GROUP BY GROUPING SETS ((name), (name), (name, name)) HAVING FALSE":       false,
		"SELECT avg(id * id) FROM t GROUP BY ROLLUP (name) HAVING FALSE":                                      false,
		"SELECT avg(id * id) FROM t GROUP BY CUBE (name) HAVING NULL":                                         false,
		"SELECT avg(id * id) FROM t GROUP BY name, GROUPING SETS ((name), ()) HAVING FALSE":                   false,
		"SELECT avg(id * id) FROM t GROUP BY GROUPING SETS ((name), (score)) HAVING FALSE":                    false,
		"SELECT avg(id * id) FROM t GROUP BY GROUPING SETS ((name)) HAVING FALSE":                             true,
		"SELECT avg(id * id) FROM t GROUP BY GROUPING SETS ((name, name)) HAVING FALSE":                       true,
		"SELECT avg(id * id) FROM t GROUP BY name, GROUPING SETS ((name)) HAVING FALSE":                       true,
		"SELECT name, avg(id * id) FROM t GROUP BY DISTINCT GROUPING SETS ((name), (1)) HAVING FALSE":         true,
		"SELECT avg(id * id) FROM t GROUP BY () HAVING FALSE":                                                 true,
		"SELECT avg(id * id) FROM t GROUP BY name HAVING FALSE":                                               true,
		"SELECT avg(id * id) FROM t HAVING FALSE":                                                             true,
		"SELECT avg(a.id * b.id) FROM t AS a, u AS b GROUP BY ROLLUP (a.name) HAVING FALSE":                   false,
		"SELECT avg(a.id * b.id) FROM t AS a, u AS b GROUP BY a.name HAVING FALSE":                            true,
		"SELECT avg(a.id * b.id) FROM t AS a, u AS b WHERE a.id = b.id GROUP BY ROLLUP (a.name) HAVING FALSE": false,
		"SELECT avg(a.id * b.id) FROM t AS a, u AS b WHERE a.id = b.id GROUP BY a.name HAVING FALSE":          true,
	} {
		_, root, _ := parseQuery(t, sql)
		var below func(r plan.Rel, underAgg bool) bool
		below = func(r plan.Rel, underAgg bool) bool {
			if f, ok := r.(*plan.FilterRel); ok && underAgg && constFalse(f.Condition()) {
				return true
			}
			_, isAgg := r.(*plan.AggregateRel)
			for _, in := range r.GetInputs() {
				if below(in, underAgg || isAgg) {
					return true
				}
			}
			return false
		}
		assert.Equal(t, moved, below(root, false), sql)
	}
}
