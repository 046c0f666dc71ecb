package engine_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
)

// affected runs one statement and returns its row count (the n of the
// command tag INSERT 0 n).
func affected(t *testing.T, db *engine.DB, q string) int64 {
	t.Helper()
	res, err := db.Exec(context.Background(), q, nil)
	require.NoError(t, err, q)
	defer res.Release()
	return res.RowsAffected
}

// TestUpsert: INSERT ... ON CONFLICT DO UPDATE as PostgreSQL 15 runs it
// (ExecInsert, ExecOnConflictUpdate): EXCLUDED is the proposed row and the
// table's name (or alias) the existing one; an updated row keeps its row
// id; rows the WHERE rejects are left alone and not counted; the count is
// inserted plus updated rows; a key moved away by an earlier row of the
// statement is free for a later one; a second proposal of a key the
// statement inserted or updated is 21000 (ErrCardinalityViolation); the
// SET of a pair PostgreSQL never evaluates raises nothing; parameters are
// the statement's, wherever they appear.
func TestUpsert(t *testing.T) {
	for _, disable := range []bool{false, true} {
		db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t), DisableIndexes: disable})
		run(t, db, `CREATE TABLE t (k INT PRIMARY KEY, v INT, w TEXT);
			INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b')`, nil)
		ids := run(t, db, `SELECT k, _rowid FROM t ORDER BY k`, nil)

		require.EqualValues(t, 2, affected(t, db, `INSERT INTO t VALUES (1, 5, 'x'), (3, 6, 'y') ON CONFLICT (k) DO UPDATE SET v = t.v + excluded.v, w = excluded.w`))
		require.Equal(t, [][]any{{int32(1), int32(15), "x"}, {int32(2), int32(20), "b"}, {int32(3), int32(6), "y"}},
			run(t, db, `SELECT k, v, w FROM t ORDER BY k`, nil))
		require.Equal(t, ids[0][1], run(t, db, `SELECT _rowid FROM t WHERE k = 1`, nil)[0][0], "the updated row keeps its row id")

		// WHERE: the rejected row is left alone and not counted.
		require.EqualValues(t, 1, affected(t, db, `INSERT INTO t AS x VALUES (1, 1, 'n'), (2, 2, 'm') ON CONFLICT (k) DO UPDATE SET v = x.v + 1 WHERE x.v > 15`))
		require.Equal(t, [][]any{{int32(15)}, {int32(21)}}, run(t, db, `SELECT v FROM t WHERE k < 3 ORDER BY k`, nil))
		// Rejected twice: not affected, so no 21000.
		require.EqualValues(t, 0, affected(t, db, `INSERT INTO t VALUES (1, 1, 'n'), (1, 2, 'm') ON CONFLICT (k) DO UPDATE SET v = 0 WHERE false`))

		// 21000, for a row updated and for a row inserted by the statement.
		before, err := db.Table(t.Context(), "t")
		require.NoError(t, err)
		for _, q := range []string{
			`INSERT INTO t VALUES (1, 1, 'n'), (1, 2, 'm') ON CONFLICT (k) DO UPDATE SET v = excluded.v`,
			`INSERT INTO t VALUES (7, 1, 'n'), (7, 2, 'm') ON CONFLICT (k) DO UPDATE SET v = excluded.v`,
		} {
			err := execErr(db, q)
			require.ErrorIs(t, err, engine.ErrCardinalityViolation, q)
			require.Contains(t, err.Error(), "ON CONFLICT DO UPDATE command cannot affect row a second time")
			after, err := db.Table(t.Context(), "t")
			require.NoError(t, err)
			require.Equal(t, before.Version(), after.Version(), "%s left a version", q)
		}

		// Row 1 moves key 2 to 12, so row 2's key is free: inserted, and
		// its pair with the moved row (100 / 0) is never evaluated.
		require.EqualValues(t, 2, affected(t, db, `INSERT INTO t VALUES (2, 1, 'p'), (2, 0, 'q') ON CONFLICT (k) DO UPDATE SET k = t.k + 10, v = 100 / excluded.v`))
		require.Equal(t, [][]any{{int32(2), int32(0), "q"}, {int32(12), int32(100), "b"}}, run(t, db, `SELECT k, v, w FROM t WHERE k IN (2, 12) ORDER BY k`, nil))
		require.Equal(t, ids[1][1], run(t, db, `SELECT _rowid FROM t WHERE k = 12`, nil)[0][0], "the moved row keeps its row id")
		// ON CONSTRAINT and SET (a, b) = (...).
		require.EqualValues(t, 1, affected(t, db, `INSERT INTO t VALUES (3, 9, 'z') ON CONFLICT ON CONSTRAINT t_pkey DO UPDATE SET (v, w) = (excluded.v + 1, 'm')`))
		require.Equal(t, [][]any{{int32(10), "m"}}, run(t, db, `SELECT v, w FROM t WHERE k = 3`, nil))
		require.ErrorIs(t, execErr(db, `INSERT INTO t VALUES (3, 9, 'z') ON CONFLICT (v) DO UPDATE SET v = 1`), engine.ErrNoArbiter)
		// Parameters are numbered across the statement: $2 only in SET.
		run(t, db, `INSERT INTO t VALUES ($1, 1, 'p') ON CONFLICT (k) DO UPDATE SET v = $2`, map[string]any{"1": int64(3), "2": int64(77)})
		require.Equal(t, [][]any{{int32(77)}}, run(t, db, `SELECT v FROM t WHERE k = 3`, nil))
		ps, err := db.ParamSchema(t.Context(), `INSERT INTO t VALUES ($1, 1, 'p') ON CONFLICT (k) DO UPDATE SET v = $2`, nil)
		require.NoError(t, err)
		require.Len(t, ps.Fields(), 2)
		ps2, err := db.ParamSchema(t.Context(), `UPDATE t SET v = $1`, nil)
		require.NoError(t, err)
		require.NotEqual(t, arrow.Null, ps.Field(1).Type, "$2, used by SET only, is typed by the action")
		require.Equal(t, ps2.Field(0).Type, ps.Field(1).Type, "as UPDATE's SET types it")
	}
}

// TestUpsertAtomic: the statement's inserts and updates are one commit, so
// a row that fails (a CHECK or NOT NULL of the updated row, a key an
// update moves onto another row's: 23505, an expression that raises)
// leaves the table at its last good version, even after earlier rows of
// the statement inserted and updated.
func TestUpsertAtomic(t *testing.T) {
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	run(t, db, `CREATE TABLE t (k INT PRIMARY KEY, v INT NOT NULL CHECK (v < 100), w TEXT);
		INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b')`, nil)
	before, err := db.Table(t.Context(), "t")
	require.NoError(t, err)
	for q, want := range map[string]error{
		`INSERT INTO t VALUES (5, 1, 'n'), (1, 1, 'n'), (2, 500, 'm') ON CONFLICT (k) DO UPDATE SET v = excluded.v`:       engine.ErrCheckViolation,
		`INSERT INTO t VALUES (5, 1, 'n'), (1, 1, 'n'), (2, 5, 'm') ON CONFLICT (k) DO UPDATE SET v = NULL WHERE t.k = 2`: engine.ErrNotNullViolation,
		`INSERT INTO t VALUES (5, 1, 'n'), (2, 5, 'm') ON CONFLICT (k) DO UPDATE SET k = 1`:                               engine.ErrUniqueViolation,
		`INSERT INTO t VALUES (5, 1, 'n'), (2, 5, 'm') ON CONFLICT (k) DO UPDATE SET k = 5`:                               engine.ErrUniqueViolation,
		`INSERT INTO t VALUES (5, 1, 'n'), (2, 0, 'm') ON CONFLICT (k) DO UPDATE SET v = 1 / excluded.v`:                  nil,
	} {
		err := execErr(db, q)
		require.Error(t, err, q)
		if want != nil {
			require.ErrorIs(t, err, want, q)
		}
		after, err := db.Table(t.Context(), "t")
		require.NoError(t, err)
		require.Equal(t, before.Version(), after.Version(), "%s left a version", q)
	}
	require.Equal(t, [][]any{{int32(1), int32(10)}, {int32(2), int32(20)}}, run(t, db, `SELECT k, v FROM t ORDER BY k`, nil))
}

// TestUpsertTransaction: inside a block the upsert writes the block's
// staged view (its later statements see it, ROLLBACK drops it), and
// a row an earlier statement of the block inserted is updated, not 21000
// (another command). A block whose upsert updated a row a concurrent
// writer changed since fails at COMMIT with a serialization conflict.
func TestUpsertTransaction(t *testing.T) {
	ctx := t.Context()
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	run(t, db, `CREATE TABLE t (k INT PRIMARY KEY, v INT); INSERT INTO t VALUES (1, 10)`, nil)
	s := db.NewSession()
	_, err := s.Exec(ctx, `BEGIN; INSERT INTO t VALUES (2, 1); INSERT INTO t VALUES (2, 5), (1, 5) ON CONFLICT (k) DO UPDATE SET v = t.v + excluded.v`, nil)
	require.NoError(t, err)
	res, err := s.Exec(ctx, `SELECT k, v FROM t ORDER BY k`, nil)
	require.NoError(t, err)
	rows, err := exectest.Rows(res.Batches...)
	require.NoError(t, err)
	res.Release()
	require.Equal(t, [][]any{{int32(1), int32(15)}, {int32(2), int32(6)}}, rows)
	require.Equal(t, [][]any{{int32(1), int32(10)}}, run(t, db, `SELECT k, v FROM t ORDER BY k`, nil), "nothing published before COMMIT")
	// A concurrent writer updates row 1 first: the block's COMMIT fails.
	require.EqualValues(t, 1, affected(t, db, `INSERT INTO t VALUES (1, 100) ON CONFLICT (k) DO UPDATE SET v = t.v + excluded.v`))
	_, err = s.Exec(ctx, `COMMIT`, nil)
	require.ErrorIs(t, err, table.ErrConflict)
	require.Equal(t, [][]any{{int32(1), int32(110)}}, run(t, db, `SELECT k, v FROM t ORDER BY k`, nil))
}

// TestUpsertConcurrent: writers racing to upsert the same key, absent at
// first: each statement either commits (inserting the row or adding to
// it) or fails with a typed commit conflict, and no update is lost: the
// row's value is the number of statements that committed.
func TestUpsertConcurrent(t *testing.T) {
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	run(t, db, `CREATE TABLE t (k INT PRIMARY KEY, v INT)`, nil)
	const writers = 8
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = execErr(db, `INSERT INTO t VALUES (42, 1) ON CONFLICT (k) DO UPDATE SET v = t.v + 1`)
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
			continue
		}
		require.True(t, errors.Is(err, table.ErrConflict), "%v", err)
	}
	require.GreaterOrEqual(t, ok, 1)
	require.Equal(t, [][]any{{int32(42), int32(ok)}}, run(t, db, `SELECT k, v FROM t`, nil))
}
