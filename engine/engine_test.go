package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
)

const seedQuery = `SELECT v.ord, t._rowaddr FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`

func run(t *testing.T, db *engine.DB, q string, params map[string]any) [][]any {
	t.Helper()
	res, err := db.Exec(context.Background(), q, params)
	require.NoError(t, err, q)
	defer res.Release()
	rows, err := exectest.Rows(res.Batches...)
	require.NoError(t, err)
	return rows
}

func TestSeedQueryEndToEnd(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	for _, disable := range []bool{false, true} {
		db := engine.OpenMemory(engine.Options{Mem: mem, DisableIndexes: disable})
		_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, name TEXT);
			INSERT INTO t SELECT g * 10, 'n' FROM generate_series(0, 999) AS g(g);
			CREATE INDEX rid ON t USING btree (_rowid);
			INSERT INTO t SELECT g * 10, 'late' FROM generate_series(1000, 1099) AS g(g);
			DELETE FROM t WHERE k = 50;
			UPDATE t SET name = 'moved' WHERE k = 70`, nil)
		require.NoError(t, err)
		ids := []int64{7, 5, 1050, 7, 99999, 0, -3}
		rows := run(t, db, seedQuery, map[string]any{"ids": ids})
		require.Len(t, rows, len(ids))
		for i, r := range rows {
			require.Equal(t, int64(i+1), r[0])
		}
		require.Nil(t, rows[1][1], "deleted row 5 is a miss")
		require.Nil(t, rows[4][1], "unknown id is a miss")
		require.Nil(t, rows[6][1], "negative id is a miss")
		require.NotNil(t, rows[0][1])
		require.Equal(t, rows[0][1], rows[3][1], "duplicate ids give the same row")
		require.NotNil(t, rows[2][1], "id appended after the index is found by the fallback")
		// Row 7 moved by the update: its address is in the newest fragment.
		got := run(t, db, `SELECT v.ord, t._rowaddr, t.k, t.name FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`, map[string]any{"ids": []int64{7, 1050}})
		require.Equal(t, []any{int64(1), got[0][1], int64(70), "moved"}, got[0])
		require.Equal(t, int64(10500), got[1][2])
		plan := run(t, db, "EXPLAIN "+seedQuery, nil)
		var text []string
		for _, r := range plan {
			text = append(text, r[0].(string))
		}
		joined := strings.Join(text, "\n")
		if disable {
			require.Contains(t, joined, "SortExec")
			require.NotContains(t, joined, "TakeByKeyExec")
		} else {
			require.Contains(t, joined, "TakeByKeyExec")
			require.NotContains(t, joined, "SortExec")
		}
	}
}

// TestSubstraitRoundTrip: the seed query lowered to Substrait JSON and run
// as an outside producer's plan gives the same rows as the SQL path.
func TestSubstraitRoundTrip(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem})
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL);
		INSERT INTO t SELECT g FROM generate_series(0, 99) AS g(g);
		CREATE INDEX rid ON t USING btree (_rowid)`, nil)
	require.NoError(t, err)
	ids := []int64{42, 7, 500, 42}
	want := run(t, db, seedQuery, map[string]any{"ids": ids})
	js, names, err := db.SubstraitOf(ctx, seedQuery)
	require.NoError(t, err)
	require.Equal(t, []string{"ids"}, names)
	res, err := db.ExecSubstrait(ctx, js, map[int]any{1: ids})
	require.NoError(t, err)
	defer res.Release()
	got, err := exectest.Rows(res.Batches...)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Contains(t, res.Plan, "TakeByKeyExec")
	_, err = db.ExecSubstrait(ctx, []byte(`{"relations": [{"root": {"input": {"window": {}}}}]}`), nil)
	require.Error(t, err)
}

// TestIndexedInFilter: WHERE k IN (...) and k = v on a column with a BTree
// plan as an IndexScanExec (plus a scan of the fragments the index does not
// cover), and return exactly the rows the index-free plan returns, also
// after a delete, an update and a recluster with the remap deferred.
func TestIndexedInFilter(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	var dbs []*engine.DB
	for _, noIdx := range []bool{false, true} {
		db := engine.OpenMemory(engine.Options{Mem: mem, DisableIndexes: noIdx, Table: table.Options{MaxRowsPerFragment: 300, BatchRows: 32}})
		_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, s TEXT);
			INSERT INTO t SELECT (g * 37) % 1000, 'v' FROM generate_series(0, 999) AS g(g);
			CREATE INDEX kx ON t USING btree (k);
			INSERT INTO t SELECT g, 'late' FROM generate_series(2000, 2010) AS g(g);
			DELETE FROM t WHERE k = 74;
			UPDATE t SET s = 'moved' WHERE k = 111`, nil)
		require.NoError(t, err)
		dbs = append(dbs, db)
	}
	queries := []string{
		"SELECT k, s, _rowid FROM t WHERE k IN (0, 37, 74, 111, 999, 2005, 5000) ORDER BY k",
		"SELECT k, s FROM t WHERE k = 111",
		"SELECT k FROM t WHERE k IN (1, 2, 3) AND s = 'v' ORDER BY k",
	}
	check := func(stage string) {
		for _, q := range queries {
			want := run(t, dbs[1], q, nil)
			res, err := dbs[0].Exec(ctx, "EXPLAIN "+q, nil)
			require.NoError(t, err)
			plan, err := exectest.Rows(res.Batches...)
			res.Release()
			require.NoError(t, err)
			require.Contains(t, fmt.Sprint(plan), "IndexScanExec", "%s: %s", stage, q)
			require.Equal(t, want, run(t, dbs[0], q, nil), "%s: %s", stage, q)
			require.NotEmpty(t, want, q)
		}
	}
	check("after writes")
	for _, db := range dbs {
		_, err := db.Exec(ctx, "CLUSTER t USING kx; DELETE FROM t WHERE k = 37", nil)
		require.NoError(t, err)
	}
	check("after cluster")
	for _, db := range dbs {
		_, err := db.Exec(ctx, "REINDEX TABLE t", nil)
		require.NoError(t, err)
	}
	check("after reindex")
}
