package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/sql"
)

// TestDescribeResultIsTheRowsSchema: the result schema Describe plans is
// the schema the statement's rows have when it runs (a query's output with
// every column type, EXPLAIN's, VACUUM's), no fields for a statement
// without a result set, and nil for a script; for SQL text and its
// Substrait plan alike.
func TestDescribeResultIsTheRowsSchema(t *testing.T) {
	ctx := context.Background()
	db, err := engine.Open(t.TempDir(), engine.Options{Mem: exectest.Mem(t)})
	require.NoError(t, err)
	_, err = db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, i INTEGER, s TEXT, c CHAR(3), f REAL, b BOOLEAN, d DATE, ts TIMESTAMP, n NUMERIC(10,2));
		INSERT INTO t VALUES (1, 2, 'a', 'b', 1.5, true, DATE '2024-01-02', TIMESTAMP '2024-01-02 03:04:05', 1.25)`, nil)
	require.NoError(t, err)
	for _, c := range []struct {
		sql      string
		fields   int // of the result; -1: unknown before it runs (nil)
		bindsOne bool
	}{
		{`SELECT * FROM t`, 9, false},
		{`SELECT k, c, c || 'x' AS cx, n * 2 AS n2, d + 1 AS d1, ts FROM t WHERE b`, 6, false},
		{`SELECT t._rowid, t._rowaddr, k FROM t WHERE k = $1`, 3, true},
		{`SELECT v.ord, v.rowid, t.s FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`, 3, true},
		{`SELECT d, sum(n) AS total, avg(f) FROM t GROUP BY d`, 3, false},
		{`EXPLAIN SELECT k FROM t WHERE k > 0`, 1, false},
		{`VACUUM t`, 5, false},
		{`VACUUM FULL t`, 3, false},
		{`INSERT INTO t (k, s) VALUES ($1, 'z')`, 0, true},
		{`UPDATE t SET s = 'y' WHERE k = 1`, 0, false},
		{`CREATE TABLE u (a BIGINT)`, 0, false},
		{`SET threads = 1`, 0, false},
		{`SELECT 1; SELECT 2`, -1, false},
	} {
		d, err := db.Describe(ctx, c.sql, nil)
		require.NoError(t, err, c.sql)
		if c.fields == -1 {
			require.Nil(t, d.Result, c.sql)
			continue
		}
		require.NotNil(t, d.Result, c.sql)
		require.Equal(t, c.fields, d.Result.NumFields(), "%s: %s", c.sql, d.Result)
		var params map[string]any
		if c.bindsOne {
			params = map[string]any{"1": int64(1)}
			if d.Params.Field(0).Type.ID() == arrow.LIST {
				params = map[string]any{"1": []int64{1, 2}}
			}
		}
		rows, err := db.Query(ctx, c.sql, params)
		require.NoError(t, err, c.sql)
		got := rows.Schema()
		require.NoError(t, rows.Close())
		if got == nil {
			got = arrow.NewSchema(nil, nil)
		}
		require.True(t, got.Equal(d.Result), "%s:\n described %s\n ran       %s", c.sql, d.Result, got)
	}

	// The same query as a Substrait plan describes as it runs.
	sp, _, err := db.SubstraitOf(ctx, `SELECT k, s, n FROM t WHERE i = $1`)
	require.NoError(t, err)
	d, err := db.Describe(ctx, "", sp)
	require.NoError(t, err)
	rows, err := db.QuerySubstrait(ctx, sp, map[int]any{1: int64(2)})
	require.NoError(t, err)
	require.True(t, rows.Schema().Equal(d.Result), "described %s\nran %s", d.Result, rows.Schema())
	require.NoError(t, rows.Close())
	require.Equal(t, 1, d.Params.NumFields())

	// A bad statement fails Describe, as PostgreSQL's PREPARE fails.
	_, err = db.Describe(ctx, `SELECT nosuch FROM t`, nil)
	require.Error(t, err)
	_, err = db.Describe(ctx, `SELECT * FROM nosuch`, nil)
	require.ErrorIs(t, err, engine.ErrUnknownTable)
	// Text after a NUL would not reach the parser: refused, as a run
	// refuses it.
	_, err = db.Describe(ctx, "SELECT k FROM t;\n\x00 DELETE FROM t", nil)
	require.ErrorIs(t, err, sql.ErrSyntax)
	require.ErrorContains(t, err, "line 2")
}

// TestDescribeRunsNothing: describing a statement plans it and nothing
// more: a DELETE deletes nothing, an INSERT and a CREATE TABLE write
// nothing, a query that fails on its first row (division by zero) does
// not fail, and one that would run for hours returns at once.
func TestDescribeRunsNothing(t *testing.T) {
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL); INSERT INTO t SELECT g FROM generate_series(1, 100) AS g(g)`, nil)
	require.NoError(t, err)
	count := func() int64 {
		res, err := db.Exec(ctx, `SELECT count(*) FROM t`, nil)
		require.NoError(t, err)
		defer res.Release()
		return res.Batches[0].Column(0).(interface{ Value(int) int64 }).Value(0)
	}
	for _, q := range []string{`DELETE FROM t`, `DELETE FROM t WHERE k > $1`, `INSERT INTO t SELECT k + 1000 FROM t`, `UPDATE t SET k = k + 1`} {
		d, err := db.Describe(ctx, q, nil)
		require.NoError(t, err, q)
		require.Zero(t, d.Result.NumFields(), q)
		require.Equal(t, int64(100), count(), q)
	}
	_, err = db.Describe(ctx, `CREATE TABLE u (a BIGINT)`, nil)
	require.NoError(t, err)
	require.NotContains(t, db.Tables(), "u")

	const fails = `SELECT 1 / (k - k) AS x FROM t`
	d, err := db.Describe(ctx, fails, nil)
	require.NoError(t, err)
	require.Equal(t, "x", d.Result.Field(0).Name)
	_, err = db.Exec(ctx, fails, nil)
	require.ErrorContains(t, err, "division by zero") // what running it would have done

	// About 10^12 rows to count: hours if it ran. Planning it is quick,
	// and the deadline fails Describe if it does more.
	slow, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	start := time.Now()
	d, err = db.Describe(slow, `SELECT count(*) AS n FROM generate_series(1, 1000000) AS a(x), generate_series(1, 1000000) AS b(y)`, nil)
	require.NoError(t, err)
	require.Equal(t, "n", d.Result.Field(0).Name)
	require.Less(t, time.Since(start), 30*time.Second)
}
