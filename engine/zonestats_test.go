package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
)

// TestExplainCostsZoneRange: a constant range on a column is estimated
// from the table's zone maps, which the catalog serves the planner. r
// holds v = 1..1000 in one batch (bounds [1, 1000]): v <= 100 keeps 100
// of its 1,000 values, evenly spread, so 100 rows (the truth: 100),
// where the fixed guess was a quarter, 250; v > 2000 lies outside every
// batch: one row, the least an estimate keeps (the truth: none). A text
// column has no numeric bounds and keeps the quarter.
func TestExplainCostsZoneRange(t *testing.T) {
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	_, err := db.Exec(context.Background(), `CREATE TABLE r (v BIGINT NOT NULL, s TEXT);
		INSERT INTO r SELECT g, 'x' || g FROM generate_series(1, 1000) AS g(g)`, nil)
	require.NoError(t, err)
	for q, want := range map[string]string{
		"SELECT v FROM r WHERE v <= 100": "FilterExec: v@0 <= 100, rows=100\n",
		"SELECT v FROM r WHERE v > 2000": "FilterExec: v@0 > 2000, rows=1\n",
		"SELECT s FROM r WHERE s > 'x5'": "FilterExec: s@0 > 'x5', rows=250\n",
	} {
		require.Contains(t, explainText(t, db, "EXPLAIN (COSTS) "+q), want, q)
	}
}
