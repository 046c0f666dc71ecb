package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// TestSubPlanJoinKeepsOuterOrder: a join made of a sublink PostgreSQL 15
// keeps as a SubPlan filter (NOT IN, a correlated IN) keeps its outer
// input's order, so ORDER BY the ordinality needs no sort and the LIMIT
// stops before the select item overflows on the second row (difftest
// seed 20261230 case 42817; difftest/regressions/subplan_join_order.slt
// holds PostgreSQL's answers). A sublink PostgreSQL pulls up into a hash
// join (a correlated EXISTS, NOT EXISTS, an uncorrelated IN) keeps its
// sort, and the overflow raises there as in PostgreSQL.
func TestSubPlanJoinKeepsOuterOrder(t *testing.T) {
	const item = "SELECT (((v.x - 3) - 4611686018427387904) - 4611686018427387904) FROM UNNEST(ARRAY[NULL, 2]) WITH ORDINALITY AS v(x, o) WHERE "
	ordered := []string{
		item + "(CAST('ab  ' AS VARCHAR(6)) NOT IN (SELECT CAST('ab    ' AS VARCHAR(6)) FROM tsj AS s WHERE (s.k > v.o + 5))) ORDER BY CAST('Infinity' AS REAL) DESC, v.o LIMIT 1",
		item + "v.o IN (SELECT s.k FROM tsj AS s WHERE s.k >= v.o) ORDER BY v.o LIMIT 1",
		item + "v.o NOT IN (SELECT s.k + 5 FROM tsj AS s) ORDER BY v.o LIMIT 1",
	}
	sorted := []string{
		item + "EXISTS (SELECT 1 FROM tsj AS s WHERE s.k = v.o) ORDER BY v.o LIMIT 1",
		item + "NOT EXISTS (SELECT 1 FROM tsj AS s WHERE s.k = v.o + 5) ORDER BY v.o LIMIT 1",
		item + "v.o IN (SELECT s.k FROM tsj AS s) ORDER BY v.o LIMIT 1",
	}
	ctx := context.Background()
	for _, batch := range []int{1, 3, 8192} {
		db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t), BatchSize: batch})
		_, err := db.Exec(ctx, "CREATE TABLE tsj (k BIGINT NOT NULL); INSERT INTO tsj VALUES (1), (2), (3)", nil)
		require.NoError(t, err)
		for _, q := range ordered {
			assert.Equal(t, [][]any{{nil}}, run(t, db, q, nil), "batch %d: %s", batch, q)
			assert.NotContains(t, explain(t, db, q), "SortExec", "batch %d: %s", batch, q)
		}
		for _, q := range sorted {
			_, err := db.Exec(ctx, q, nil)
			assert.ErrorIs(t, err, physexpr.ErrOutOfRange, "batch %d: %s", batch, q)
			assert.Contains(t, explain(t, db, q), "SortExec", "batch %d: %s", batch, q)
		}
	}
}

// explain is q's EXPLAIN text.
func explain(t *testing.T, db *engine.DB, q string) string {
	t.Helper()
	var text []string
	for _, r := range run(t, db, "EXPLAIN "+q, nil) {
		text = append(text, r[0].(string))
	}
	return strings.Join(text, "\n")
}
