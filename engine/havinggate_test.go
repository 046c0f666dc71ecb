package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	sqlvalue "github.com/stablerow/stablerow/value"
)

// TestConstantHavingUnderGroupingSetsReadsEveryRow: PostgreSQL keeps a
// HAVING in the HAVING under grouping sets (subquery_planner) and gates
// only the WHERE's constant quals (create_gating_plan), so a HAVING that
// is or folds to FALSE or NULL there is the aggregate's filter: every row
// is aggregated and the overflow raises (difftest seed 20261230 case
// 31349; difftest/regressions/having_grouping_sets.slt holds
// PostgreSQL's answers). Moved into the WHERE (a plain GROUP BY, one set,
// none) it gates the input: no row is read.
func TestConstantHavingUnderGroupingSetsReadsEveryRow(t *testing.T) {
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	_, err := db.Exec(ctx, "CREATE TABLE t (k BIGINT NOT NULL, c1 TEXT, c3 BIGINT); INSERT INTO t VALUES (-1, '1.5', 500696843415494592), (2, 'x', 1)", nil)
	require.NoError(t, err)
	for _, q := range []string{
		"SELECT avg(c3 * c3) FROM t GROUP BY GROUPING SETS ((c1), (c1), (c1, c1)) HAVING FALSE",
		"SELECT avg(c3 * c3) FROM t GROUP BY ROLLUP (c1) HAVING sum(k) <> CAST(NULL AS BIGINT)",
	} {
		_, err := db.Exec(ctx, q, nil)
		assert.ErrorIs(t, err, sqlvalue.ErrOutOfRange, q)
	}
	for _, q := range []string{
		"SELECT avg(c3 * c3) FROM t GROUP BY GROUPING SETS ((c1)) HAVING FALSE",
		"SELECT avg(c3 * c3) FROM t GROUP BY c1 HAVING sum(k) <> CAST(NULL AS BIGINT)",
		"SELECT avg(c3 * c3) FROM t HAVING NULL",
	} {
		assert.Empty(t, run(t, db, q, nil), q)
	}
}
