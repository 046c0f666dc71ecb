package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
)

// TestConstantFalseQualGatesItsInput: a WHERE or HAVING that is constant
// FALSE, or NULL, or FALSE by canonicalize_qual (a NULL arm of its AND),
// keeps no row and never executes its input, as PostgreSQL's Result with
// One-Time Filter: false (difftest seed 20261207 cases 9048 and 105807;
// difftest/regressions/constant_false_quals.slt holds PostgreSQL's
// answers): the rows that would divide by zero are never read. EXPLAIN
// ANALYZE shows the gated subtree "(never executed)", without metrics.
func TestConstantFalseQualGatesItsInput(t *testing.T) {
	ctx := context.Background()
	for _, batch := range []int{1, 8192} {
		db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t), BatchSize: batch})
		_, err := db.Exec(ctx, "CREATE TABLE t (k BIGINT NOT NULL, c0 INTEGER); INSERT INTO t VALUES (1, 0), (2, 5)", nil)
		require.NoError(t, err)
		for q, want := range map[string][][]any{
			"SELECT k FROM t WHERE k / c0 > 1 AND CAST(NULL AS BOOLEAN)":                                         nil,
			"SELECT k FROM t WHERE c0 = 0 OR (k / c0 > 1 AND CAST(NULL AS BOOLEAN))":                             {{int64(1)}},
			"SELECT sum(k) FROM t WHERE k / c0 > 0 HAVING sum(k) <> CAST(NULL AS BIGINT)":                        nil,
			"SELECT count(*) FROM generate_series(0, 3, 1) AS g(g) WHERE g % g > 0 HAVING CAST(NULL AS BOOLEAN)": nil,
			"SELECT a.k FROM t AS a, t AS b WHERE a.k / b.c0 > 0 AND a.k = b.k AND CAST(NULL AS BOOLEAN)":        nil,
		} {
			assert.Equal(t, want, run(t, db, q, nil), "batch %d: %s", batch, q)
		}
		_, err = db.Exec(ctx, "SELECT sum(k) FROM t WHERE k / c0 > 0 HAVING sum(k) <> 1", nil)
		require.Error(t, err, "the input runs where the HAVING is not constant")
	}

	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	_, err := db.Exec(ctx, "CREATE TABLE t (k BIGINT NOT NULL, c0 INTEGER); INSERT INTO t VALUES (1, 0), (2, 5)", nil)
	require.NoError(t, err)
	var text []string
	for _, r := range run(t, db, "EXPLAIN ANALYZE SELECT sum(k) FROM t WHERE k / c0 > 0 HAVING sum(k) <> CAST(NULL AS BIGINT)", nil) {
		text = append(text, r[0].(string))
	}
	plan := strings.Join(text, "\n")
	gate := -1
	for i, l := range text {
		if strings.Contains(l, "One-Time Filter: false") {
			gate = i
			break
		}
	}
	require.GreaterOrEqual(t, gate, 0, plan)
	require.Greater(t, len(text), gate+1, plan)
	for _, l := range text[gate+1:] {
		assert.True(t, strings.HasSuffix(l, "(never executed)"), plan)
		assert.NotContains(t, l, "metrics=", plan)
	}
	assert.Contains(t, plan, "HashAggregateExec", plan)
	assert.Contains(t, plan, "ScanExec", plan)
}
