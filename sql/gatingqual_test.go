package sql

import (
	"testing"

	"github.com/stablerow/stablerow/exec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// A top WHERE conjunct that reads no column is PostgreSQL's gating qual,
// evaluated once before any row: it raises over no rows, stable casts
// included, and a NULL or FALSE one empties the filter so the other
// conjuncts never see a row (seed 20261214); a subquery's is left to run
// with it.
func TestGatingQualsOfTheTopWhere(t *testing.T) {
	_, err := Parse("SELECT 3 FROM t AS a WHERE (CAST(-10 AS BIGINT) = CAST(CAST(TIMESTAMP '2023-12-31' AS TEXT) AS BIGINT))", testCatalog)
	assert.ErrorIs(t, err, exec.ErrInvalidArgument)
	_, err = Parse("SELECT 3 FROM t AS a WHERE a.id > 1 AND CAST(CAST(DATE '2023-12-31' AS TEXT) AS DOUBLE PRECISION) = 1", testCatalog)
	assert.ErrorIs(t, err, exec.ErrInvalidArgument)

	for _, sql := range []string{
		"SELECT CAST(-1 AS SMALLINT) FROM t AS a WHERE (mod(a.id, a.id) < CAST(4294967296 AS BIGINT)) GROUP BY 1 HAVING (CAST(NULL AS DOUBLE PRECISION) = CAST(NULL AS DOUBLE PRECISION))",
		"SELECT id FROM t AS a WHERE mod(a.id, a.id) = 1 AND CAST(NULL AS BOOLEAN)",
		"SELECT id FROM t AS a WHERE mod(a.id, a.id) = 1 AND CAST(CAST(DATE '2023-12-31' AS TEXT) AS DATE) > DATE '2024-01-01'",
	} {
		_, root, _ := parseQuery(t, sql)
		var filters []*plan.FilterRel
		var walk func(r plan.Rel)
		walk = func(r plan.Rel) {
			if f, ok := r.(*plan.FilterRel); ok {
				filters = append(filters, f)
			}
			for _, in := range r.GetInputs() {
				walk(in)
			}
		}
		walk(root)
		require.NotEmpty(t, filters, sql)
		for _, f := range filters {
			assert.True(t, constFalse(f.Condition()), "%s: filter %v", sql, f.Condition())
		}
	}
	// In a subquery it is left to run as often as the subquery does.
	_, err = Parse("SELECT id FROM t AS a WHERE EXISTS (SELECT 1 FROM t AS s WHERE s.id = a.id AND CAST(CAST(DATE '2023-12-31' AS TEXT) AS DOUBLE PRECISION) = 1)", testCatalog)
	assert.NoError(t, err)
}
