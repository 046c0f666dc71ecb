package sql

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// reads counts a plan's scans of each table.
func reads(r plan.Rel) map[string]int {
	out := map[string]int{}
	var walk func(r plan.Rel)
	walk = func(r plan.Rel) {
		if nt, ok := r.(*plan.NamedTableReadRel); ok {
			out[nt.Names()[0]]++
		}
		for _, in := range r.GetInputs() {
			walk(in)
		}
	}
	walk(r)
	return out
}

// TestRestriction: the grouped input of a correlated scalar aggregate
// reads its outer keys' table a third time (the restriction) when the
// outer WHERE has a conjunct on that table alone, a parameter in it
// included (it is the same $1, typed as in the WHERE), and not
// otherwise. The answers are in testdata/sql/subquery_restrict.slt.
func TestRestriction(t *testing.T) {
	for _, c := range []struct {
		sql    string
		params []string
		reads  map[string]int
	}{
		{"SELECT t.id FROM t WHERE t.name = :b AND t.score < (SELECT avg(t2.score) FROM t AS t2 WHERE t2.id = t.id)",
			[]string{"b"}, map[string]int{"t": 3}},
		// A conjunct with a parameter on the other side only.
		{"SELECT t.id FROM t, u WHERE u.id = t.id AND u.flag = :f AND t.score < (SELECT max(t2.score) FROM t AS t2 WHERE t2.id = t.id)",
			[]string{"f"}, map[string]int{"t": 2, "u": 1}},
		// No conjunct on t alone: no restriction.
		{"SELECT t.id FROM t WHERE t.score < (SELECT avg(t2.score) FROM t AS t2 WHERE t2.id = t.id)",
			nil, map[string]int{"t": 2}},
		// Keys from two tables: none either.
		{"SELECT t.id FROM t, u WHERE u.flag AND t.name = 'x' AND t.score < (SELECT max(t2.score) FROM t AS t2 WHERE t2.id = t.id AND t2.id = u.id)",
			nil, map[string]int{"t": 2, "u": 1}},
		// The key's table restricted by u's key through an equality: u's
		// own conjunct restricts u (the outer key is u.id).
		{"SELECT t.id FROM t, u WHERE u.id = t.id AND u.flag AND t.score < (SELECT max(t2.score) FROM t AS t2 WHERE t2.id = u.id)",
			nil, map[string]int{"t": 2, "u": 2}},
	} {
		q, root, _ := parseQuery(t, c.sql)
		assert.Equal(t, c.params, q.ParamNames, c.sql)
		require.Equal(t, c.reads, reads(root), c.sql)
	}
	// A derived table the user names like the restriction is a derived
	// table (a FROM without a table, here), not a restriction.
	_, root, _ := parseQuery(t, `SELECT t.id FROM t, (SELECT 1 AS x) AS "?restrict" WHERE t.id = "?restrict".x`)
	assert.Equal(t, map[string]int{"t": 1}, reads(root))
}
