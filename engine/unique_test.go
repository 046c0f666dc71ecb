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

// TestUniqueIndex: CREATE UNIQUE INDEX refuses duplicate rows; afterwards
// every commit that adds rows is checked against the rows the index
// covers, the rows appended since (which it does not), and the statement's
// own rows; NULLs never conflict; an update may keep a row's key; a
// refused statement leaves the table at its last good version.
func TestUniqueIndex(t *testing.T) {
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	run(t, db, `CREATE TABLE t (a INT, b TEXT, c DOUBLE PRECISION)`, nil)
	run(t, db, `INSERT INTO t VALUES (1, 'x', 1), (1, 'y', 2), (2, NULL, 3), (2, NULL, 4)`, nil)
	err := execErr(db, `CREATE UNIQUE INDEX ua ON t (a)`)
	require.ErrorIs(t, err, engine.ErrUniqueViolation)
	require.Contains(t, err.Error(), `could not create unique index "ua"`)
	tb, err := db.Table(ctx, "t")
	require.NoError(t, err)
	require.Nil(t, tb.Index("ua"), "a refused index is not recorded")
	run(t, db, `CREATE UNIQUE INDEX uab ON t (a, b DESC)`, nil)
	run(t, db, `INSERT INTO t VALUES (3, 'x', 5)`, nil) // uncovered from here on

	before, err := db.Table(ctx, "t")
	require.NoError(t, err)
	for _, q := range []string{
		`INSERT INTO t VALUES (1, 'x', 9)`,              // a covered row's key
		`INSERT INTO t VALUES (3, 'x', 9)`,              // an uncovered row's key
		`INSERT INTO t VALUES (4, 'q', 0), (4, 'q', 1)`, // twice in one statement
		`UPDATE t SET b = 'y' WHERE b = 'x' AND a = 1`,  // onto another row's key
		`INSERT INTO t SELECT 5, 'z', g FROM generate_series(1, 3) AS g(g)`,
	} {
		err := execErr(db, q)
		require.ErrorIs(t, err, engine.ErrUniqueViolation, q)
		require.Contains(t, err.Error(), `duplicate key value violates unique constraint "uab"`, q)
		require.NotErrorIs(t, err, table.ErrConflict, "%s: no concurrent writer", q)
		after, err := db.Table(ctx, "t")
		require.NoError(t, err)
		require.Equal(t, before.Version(), after.Version(), "%s left a version", q)
	}
	run(t, db, `INSERT INTO t VALUES (2, NULL, 5), (NULL, 'x', 6), (NULL, 'x', 7)`, nil)
	run(t, db, `UPDATE t SET c = c + 1 WHERE a = 1`, nil) // keys kept
	run(t, db, `DELETE FROM t WHERE a = 3`, nil)
	run(t, db, `INSERT INTO t VALUES (3, 'x', 8)`, nil) // the deleted row's key is free
	require.Equal(t, [][]any{{int64(8)}}, run(t, db, `SELECT count(*) FROM t`, nil))
}

// TestUniqueIndexConcurrentWriters: two writers that read the same
// version and append the same key: the second to commit rebases over the
// first, is checked again, and fails with a unique violation that is also
// a commit conflict (errors.Is both); the table holds the first's row.
// Racing statements: exactly one of them inserts the key.
func TestUniqueIndexConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	db := engine.OpenMemory(engine.Options{Mem: mem})
	run(t, db, `CREATE TABLE t (k BIGINT, v TEXT)`, nil)
	run(t, db, `INSERT INTO t VALUES (1, 'a')`, nil)
	run(t, db, `CREATE UNIQUE INDEX uk ON t (k)`, nil)
	base, err := db.Table(ctx, "t")
	require.NoError(t, err)
	batch := func(k int64) arrow.RecordBatch {
		b, err := exectest.Batch(mem, base.UserSchema(), [][]any{{k, "w"}})
		require.NoError(t, err)
		return b
	}
	b1, b2 := batch(7), batch(7)
	defer b1.Release()
	defer b2.Release()
	_, err = base.AppendBatches(ctx, []arrow.RecordBatch{b1}, mem)
	require.NoError(t, err)
	_, err = base.AppendBatches(ctx, []arrow.RecordBatch{b2}, mem)
	require.ErrorIs(t, err, engine.ErrUniqueViolation)
	require.ErrorIs(t, err, table.ErrConflict)
	require.Equal(t, [][]any{{int64(1)}}, run(t, db, `SELECT count(*) FROM t WHERE k = 7`, nil))

	const writers = 6
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = execErr(db, `INSERT INTO t VALUES (42, 'race')`)
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
			continue
		}
		require.True(t, errors.Is(err, engine.ErrUniqueViolation), "%v", err)
	}
	require.Equal(t, 1, ok)
	require.Equal(t, [][]any{{int64(1)}}, run(t, db, `SELECT count(*) FROM t WHERE k = 42`, nil))
}

// TestDropIndex: DROP INDEX removes the index from the table that has
// it, in a new version; IF EXISTS makes a missing one a no-op; without, it
// is ErrUnknownIndex. Dropping a unique index lifts the check.
func TestDropIndex(t *testing.T) {
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	run(t, db, `CREATE TABLE t (k BIGINT); CREATE TABLE u (k BIGINT)`, nil)
	run(t, db, `INSERT INTO u VALUES (1)`, nil)
	run(t, db, `CREATE UNIQUE INDEX uk ON u (k DESC)`, nil)
	require.ErrorIs(t, execErr(db, `INSERT INTO u VALUES (1)`), engine.ErrUniqueViolation)
	run(t, db, `DROP INDEX uk`, nil)
	u, err := db.Table(ctx, "u")
	require.NoError(t, err)
	require.Empty(t, u.Indexes())
	run(t, db, `INSERT INTO u VALUES (1)`, nil)
	run(t, db, `DROP INDEX IF EXISTS uk`, nil)
	err = execErr(db, `DROP INDEX uk`)
	require.ErrorIs(t, err, engine.ErrUnknownIndex)
	require.Contains(t, err.Error(), `index "uk" does not exist`)
	require.Equal(t, [][]any{{int64(2)}}, run(t, db, `SELECT count(*) FROM u WHERE k = 1`, nil))
}

// TestTakeByUniqueKey: the take contract on a unique index of a user
// column, ascending or DESC (a one-column composite key): a TakeByKeyExec,
// input order and duplicates kept, misses as NULL, and the rows a
// database without indexes returns after appends, updates and deletes.
func TestTakeByUniqueKey(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	for _, order := range []string{"", " DESC"} {
		dbs := []*engine.DB{engine.OpenMemory(engine.Options{Mem: mem}), engine.OpenMemory(engine.Options{Mem: mem, DisableIndexes: true})}
		for _, db := range dbs {
			run(t, db, `CREATE TABLE u (code TEXT, n INTEGER);
				INSERT INTO u SELECT 'c' || g, g FROM generate_series(1, 300) AS g(g);
				CREATE UNIQUE INDEX uc ON u (code`+order+`);
				INSERT INTO u VALUES ('late', 1000);
				UPDATE u SET n = -n WHERE code = 'c7';
				DELETE FROM u WHERE code = 'c9'`, nil)
		}
		q := `SELECT v.ord, u.code, u.n FROM UNNEST(ARRAY['c5', 'late', 'nope', 'c7', 'c9', 'c5', 'c300']) WITH ORDINALITY AS v(code, ord) LEFT JOIN u ON u.code = v.code ORDER BY v.ord`
		want := run(t, dbs[1], q, nil)
		require.Equal(t, want, run(t, dbs[0], q, nil), order)
		require.Len(t, want, 7)
		res, err := dbs[0].Exec(ctx, "EXPLAIN "+q, nil)
		require.NoError(t, err)
		require.Contains(t, res.Plan, "TakeByKeyExec", order)
		res.Release()
	}
}
