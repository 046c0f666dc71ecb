package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// TestParamErrors: a parameter of the wrong shape or Go type, or a missing
// one, is an ErrParam error naming the parameter as the SQL wrote it and
// what it must be; none panics (a list bound to a scalar used to panic in
// arrow-go's scalar.MakeScalar).
func TestParamErrors(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem})
	_, err := db.Exec(ctx, "CREATE TABLE t (k BIGINT NOT NULL); INSERT INTO t VALUES (1)", nil)
	require.NoError(t, err)
	cases := []struct {
		q      string
		params map[string]any
		want   []string
		kind   error
	}{
		{"SELECT k + :x FROM t", map[string]any{"x": []int64{7, 8}}, []string{"parameter :x", "list of 2 values", "want one int64"}, plan.ErrParamType},
		{"SELECT k + :x FROM t", map[string]any{"x": []string{"a"}}, []string{"parameter :x", "list of 1 values"}, plan.ErrParamType},
		{"SELECT k + :x FROM t", map[string]any{"x": struct{ A int }{1}}, []string{"parameter :x", "want int64"}, plan.ErrParamType},
		{"SELECT k + :x FROM t", map[string]any{"x": map[string]int{}}, []string{"parameter :x"}, plan.ErrParamType},
		{"SELECT k + :x FROM t", map[string]any{"y": int64(1)}, []string{"parameter :x"}, engine.ErrParam},
		{"SELECT k + $1 FROM t", map[string]any{"1": []int64{1}}, []string{"parameter $1"}, plan.ErrParamType},
		{"SELECT v.a FROM UNNEST(:ids) AS v(a)", map[string]any{"ids": "5,6"}, []string{"parameter :ids", "want a list of integers"}, plan.ErrParamType},
	}
	for _, c := range cases {
		res, err := db.Exec(ctx, c.q, c.params)
		require.Error(t, err, "%s %v", c.q, c.params)
		res.Release()
		require.True(t, errors.Is(err, engine.ErrParam), "%v", err)
		require.True(t, errors.Is(err, c.kind), "%v", err)
		require.True(t, errors.Is(err, errkind.InvalidArgument), "%v", err)
		for _, w := range c.want {
			require.Contains(t, err.Error(), w)
		}
	}
	// One integer is the list of one where a list is unnested.
	got := run(t, db, "SELECT v.a FROM UNNEST(:ids) AS v(a)", map[string]any{"ids": int64(5)})
	require.Equal(t, [][]any{{int64(5)}}, got)
}

// TestScriptErrorsKeepIdentity: an error of a statement of a script names
// the statement and its line and still matches its sentinel and kind.
func TestScriptErrorsKeepIdentity(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem})
	_, err := db.Exec(ctx, "CREATE TABLE t (k BIGINT);\n\n  SELECT nope FROM t; SELECT 1", nil)
	require.True(t, errors.Is(err, sql.ErrUnknownColumn), "%v", err)
	require.True(t, errors.Is(err, errkind.InvalidArgument), "%v", err)
	require.Contains(t, err.Error(), "statement 2 (line 3)")
	_, err = db.Exec(ctx, "SELECT k FROM missing", nil)
	require.True(t, errors.Is(err, engine.ErrUnknownTable), "%v", err)
	require.True(t, errors.Is(err, errkind.NotFound), "%v", err)
	_, err = db.Exec(ctx, "CREATE TABLE t (k BIGINT)", nil)
	require.True(t, errors.Is(err, engine.ErrTableExists), "%v", err)
	_, err = db.Exec(ctx, "CREATE INDEX i ON t USING btree (_rowid); CREATE INDEX i ON t USING btree (_rowid)", nil)
	require.True(t, errors.Is(err, engine.ErrIndexExists), "%v", err)
	_, err = db.Exec(ctx, "CREATE INDEX IF NOT EXISTS i ON t USING btree (_rowid)", nil)
	require.NoError(t, err)
	_, err = db.Exec(ctx, " ; -- nothing\n", nil)
	require.True(t, errors.Is(err, sql.ErrSyntax), "%v", err)
	// libpg_query reads C strings: what follows a NUL would be dropped
	// unseen (here the DROP), so a NUL byte is refused.
	_, err = db.Exec(ctx, "SELECT 1;\x00 DROP TABLE t", nil)
	require.True(t, errors.Is(err, sql.ErrSyntax), "%v", err)
	require.Contains(t, err.Error(), "NUL byte")
	_, err = db.Exec(ctx, "SELECT k FROM t", nil)
	require.NoError(t, err)
}

// Errors of a later statement name its place in the whole script, not in
// the piece the splitter cut (which begins after the previous ';').
func TestScriptErrorPositionsAreTheScripts(t *testing.T) {
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	ctx := context.Background()
	_, err := db.Exec(ctx, "SELECT 1; SELEC 2", nil)
	require.ErrorContains(t, err, "statement 2 (line 1)")
	require.ErrorContains(t, err, "at line 1, column 11")
	_, err = db.Exec(ctx, "CREATE TABLE t (k BIGINT);\nSELECT 1;  SELECT k,\n   nope FROM t", nil)
	require.ErrorContains(t, err, "statement 3 (line 2)")
	require.ErrorContains(t, err, "at line 3, column 4")
	stmts, _ := engine.SplitStatements("SELECT 'é';  SELEC 2;")
	_, err = db.QueryStatement(ctx, stmts[1], nil)
	require.ErrorContains(t, err, "at line 1, column 14") // columns count characters, not bytes
}

// TestParamImplicitCasts: a bound value of a type PostgreSQL converts to
// the parameter's type implicitly is taken (an integer for a numeric
// parameter, exactly); any other is an ErrParam naming the parameter
// (issue 26 §3): text, double precision or boolean for numeric, an
// integer for text, date or boolean.
func TestParamImplicitCasts(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem})
	_, err := db.Exec(ctx, "CREATE TABLE n (k BIGINT, v NUMERIC(10,2), d DATE, s TEXT, b BOOLEAN)", nil)
	require.NoError(t, err)
	res, err := db.Exec(ctx, "INSERT INTO n (k, v) VALUES (1, :v)", map[string]any{"v": int64(7)})
	require.NoError(t, err)
	res.Release()
	require.Equal(t, [][]any{{int64(1)}}, run(t, db, "SELECT k FROM n WHERE v = $1", map[string]any{"1": int64(7)}))
	require.Equal(t, [][]any{{"7.00"}}, run(t, db, "SELECT CAST(v AS TEXT) FROM n WHERE v > $1", map[string]any{"1": int32(6)}))

	cases := []struct {
		q     string
		param string
		v     any
	}{
		{"SELECT k FROM n WHERE v = :x", ":x", "7"},
		{"SELECT k FROM n WHERE v = :x", ":x", 7.0},
		{"SELECT k FROM n WHERE v = :x", ":x", true},
		{"INSERT INTO n (v) VALUES ($1)", "$1", int64(123456789012)}, // beyond numeric(10,2)
		{"SELECT k FROM n WHERE d = :x", ":x", int64(1)},
		{"SELECT k FROM n WHERE s = :x", ":x", int64(1)},
		{"SELECT k FROM n WHERE b = :x", ":x", int64(1)},
		{"SELECT k FROM n WHERE k = :x", ":x", "1"},
	}
	for _, c := range cases {
		name := c.param[1:]
		res, err := db.Exec(ctx, c.q, map[string]any{name: c.v})
		require.Error(t, err, "%s %T", c.q, c.v)
		res.Release()
		require.True(t, errors.Is(err, engine.ErrParam), "%s %T: %v", c.q, c.v, err)
		require.True(t, errors.Is(err, plan.ErrParamType), "%s %T: %v", c.q, c.v, err)
		require.Contains(t, err.Error(), "parameter "+c.param)
	}
}
