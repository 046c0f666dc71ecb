package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
)

// TestLimitEvaluatesSelectListWherePostgreSQLDoes: an item that raises
// on a row the LIMIT discards raises where PostgreSQL 15 evaluates it
// (difftest/regressions/limit_projection.slt holds PostgreSQL's answers;
// seed 20261206 case 50198): a projection under the LIMIT evaluates the
// rows the LIMIT reads (offset + count); with ORDER BY ... LIMIT an item
// of more than 10 operator calls that is not a sort key is evaluated
// after the sort, a cheaper one on every row; UNNEST ... WITH ORDINALITY
// ordered by the ordinality column is not sorted in PostgreSQL, so every
// item is evaluated after the limit. Every batch size gives the same.
func TestLimitEvaluatesSelectListWherePostgreSQLDoes(t *testing.T) {
	const big = " + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1" // 10 calls: with * 4, 11
	ok := map[string][]any{
		"SELECT (CAST(6296399452675843583 AS BIGINT) * v.o) FROM UNNEST(ARRAY[-100, 5]) WITH ORDINALITY AS v(x, o) ORDER BY CAST('Infinity' AS REAL), v.o LIMIT 1": {int64(6296399452675843583)},
		"SELECT v.o * 4611686018427387904 FROM UNNEST(ARRAY[7, 8, 9]) WITH ORDINALITY AS v(x, o) ORDER BY v.o LIMIT 1":                                             {int64(4611686018427387904)},
		"SELECT a.c0 * 4" + big + " FROM tl AS a ORDER BY a.k LIMIT 1":                                                                                             {int64(14)},
	}
	raises := []string{
		"SELECT v.o * 4611686018427387904 FROM UNNEST(ARRAY[7, 8, 9]) WITH ORDINALITY AS v(x, o) ORDER BY v.o LIMIT 1 OFFSET 1",
		"SELECT v.o * 4611686018427387904 FROM UNNEST(ARRAY[7, 8, 9]) WITH ORDINALITY AS v(x, o) ORDER BY v.x, v.o LIMIT 1",
		"SELECT a.c0 * 4 FROM tl AS a ORDER BY a.k LIMIT 1",
		"SELECT a.c0 * 4" + strings.TrimSuffix(big, " + 1") + " FROM tl AS a ORDER BY a.k LIMIT 1",
		"SELECT a.c0 * 4" + big + " FROM tl AS a ORDER BY a.k LIMIT 1 OFFSET 1",
		"SELECT a.c0 * 4" + big + " AS x FROM tl AS a ORDER BY x LIMIT 1",
	}
	ctx := context.Background()
	for _, batch := range []int{1, 2, 8192} {
		mem := exectest.Mem(t)
		db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: batch})
		_, err := db.Exec(ctx, "CREATE TABLE tl (k BIGINT NOT NULL, c0 BIGINT); INSERT INTO tl VALUES (1, 1), (2, 4611686018427387904), (3, 2)", nil)
		require.NoError(t, err)
		for q, want := range ok {
			require.Equal(t, [][]any{want}, run(t, db, q, nil), "batch %d: %s", batch, q)
		}
		for _, q := range raises {
			_, err := db.Exec(ctx, q, nil)
			require.ErrorIs(t, err, physexpr.ErrOutOfRange, "batch %d: %s", batch, q)
		}
	}
}

// TestExplainShowsLimitUnderProjection: EXPLAIN ANALYZE shows the
// LimitExec that cuts the projection's input, with its own row count.
func TestExplainShowsLimitUnderProjection(t *testing.T) {
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	_, err := db.Exec(context.Background(), "CREATE TABLE tl (k BIGINT NOT NULL, c0 BIGINT); INSERT INTO tl SELECT g, g FROM generate_series(1, 100) AS g(g)", nil)
	require.NoError(t, err)
	var text []string
	for _, r := range run(t, db, "EXPLAIN ANALYZE SELECT a.c0 * 4 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 FROM tl AS a ORDER BY a.k LIMIT 2 OFFSET 1", nil) {
		text = append(text, r[0].(string))
	}
	// The postponed item is computed on offset + count = 3 rows, cut by
	// a LimitExec of its own under the projection.
	var project, cut string
	for i, l := range text {
		if strings.Contains(l, "ProjectExec") && strings.Contains(l, "* 4 + 1") && i+1 < len(text) {
			project, cut = l, text[i+1]
		}
	}
	require.Contains(t, project, "output_rows=3,", strings.Join(text, "\n"))
	require.Contains(t, cut, "LimitExec: offset=0 limit=3, metrics=[output_rows=3,", strings.Join(text, "\n"))
}
