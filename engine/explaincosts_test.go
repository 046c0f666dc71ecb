package engine_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/sql"
)

// explainText is the plan text of an EXPLAIN statement.
func explainText(t *testing.T, db *engine.DB, q string) string {
	t.Helper()
	var b strings.Builder
	for _, r := range run(t, db, q, nil) {
		fmt.Fprintln(&b, r[0])
	}
	return b.String()
}

// TestExplainCosts: EXPLAIN (COSTS) shows each node's estimated rows
// (rows=N), EXPLAIN (ANALYZE, COSTS) the estimate beside the node's own
// output_rows. a has 10,000 rows, v = g % 100 (its sketch counts 101
// values, so v = 5 keeps 10,000/101 = 99: eqsel's 1/ndistinct, the
// truth is 100); b has 500, s = 'x' || g % 7 (7 values: 500/7 = 71,
// the truth 72). The join of the 99 a rows with b on b's key keeps 99
// (a key join); the aggregate without grouping is one row. Nodes the
// physical rules add without a relation of their own (the root
// projection) have none. Plain EXPLAIN and (COSTS off) show none.
func TestExplainCosts(t *testing.T) {
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	_, err := db.Exec(context.Background(), `CREATE TABLE a (k BIGINT NOT NULL, v BIGINT NOT NULL);
		CREATE TABLE b (k BIGINT NOT NULL, s TEXT);
		INSERT INTO a SELECT g, g % 100 FROM generate_series(1, 10000) AS g(g);
		INSERT INTO b SELECT g, 'x' || (g % 7) FROM generate_series(1, 500) AS g(g)`, nil)
	require.NoError(t, err)
	q := "SELECT count(*) FROM a JOIN b ON a.v = b.k WHERE a.v = 5"
	require.Equal(t, `01)ProjectExec: expr=[count0@0 as count]
02)  HashAggregateExec: aggr=[count(*) as count0], rows=1
03)    HashJoinExec: type=Inner on=[(k, v)], rows=99
04)      ScanExec: version=2, columns=[k], fragments=all, rows=500
05)      FilterExec: v@0 = 5, rows=99
06)        ScanExec: version=2, columns=[v], fragments=all, rows=10000
`, explainText(t, db, "EXPLAIN (COSTS) "+q))
	for _, plain := range []string{"EXPLAIN ", "EXPLAIN (COSTS off) ", "EXPLAIN (COSTS false, ANALYZE false) "} {
		require.NotContains(t, explainText(t, db, plain+q), "rows=", plain)
	}

	// Estimate and actual side by side, per node.
	got := explainText(t, db, "EXPLAIN (ANALYZE, COSTS) SELECT a.k FROM a JOIN b ON a.v = b.k WHERE b.s = 'x3'")
	for _, want := range []string{
		`FilterExec: s@1 = 'x3', rows=71, metrics=[output_rows=72,`,
		`ScanExec: version=2, columns=[k, s], fragments=all, rows=500, metrics=[output_rows=500,`,
	} {
		require.Contains(t, got, want)
	}
	require.Regexp(t, regexp.MustCompile(`HashJoinExec: [^\n]*, rows=\d+, metrics=\[output_rows=1400,`), got)

	_, err = db.Exec(context.Background(), "EXPLAIN (COSTS maybe) "+q, nil)
	require.ErrorIs(t, err, sql.ErrInvalid)
	_, err = db.Exec(context.Background(), "EXPLAIN (VERBOSE) "+q, nil)
	require.ErrorIs(t, err, sql.ErrUnsupported)
}
