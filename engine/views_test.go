package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/sql"
)

func execErr(db *engine.DB, q string) error {
	res, err := db.Exec(context.Background(), q, nil)
	if err == nil {
		res.Release()
	}
	return err
}

// Views: a view reads its tables' current versions; CREATE OR REPLACE
// keeps the columns (42P16 otherwise); DROP TABLE or DROP VIEW of what a
// view reads is 2BP01; writes to a view, a view over an unknown table, a
// name taken by a table are refused with typed errors; the views survive
// the database being opened again.
func TestViews(t *testing.T) {
	dir := t.TempDir()
	open := func() *engine.DB {
		db, err := engine.Open(dir, engine.Options{Mem: exectest.Mem(t)})
		require.NoError(t, err)
		return db
	}
	db := open()
	run(t, db, `CREATE TABLE t (k BIGINT NOT NULL, s TEXT)`, nil)
	run(t, db, `INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)`, nil)
	run(t, db, `CREATE VIEW v (key, label) AS SELECT k, s FROM t WHERE s IS NOT NULL`, nil)
	run(t, db, `CREATE VIEW w AS SELECT count(*) AS n FROM v`, nil)
	require.Equal(t, [][]any{{int64(2)}}, run(t, db, `SELECT n FROM w`, nil))
	run(t, db, `INSERT INTO t VALUES (4, 'd')`, nil)
	require.Equal(t, [][]any{{int64(3)}}, run(t, db, `SELECT * FROM w`, nil), "the table's current version")
	require.Equal(t, [][]any{{int64(4), "d"}}, run(t, db, `SELECT x.key, label FROM v AS x WHERE x.key > 3`, nil))
	require.Equal(t, [][]any{{"t", "BASE TABLE"}, {"v", "VIEW"}, {"w", "VIEW"}},
		run(t, db, `SELECT table_name, table_type FROM information_schema.tables ORDER BY table_name`, nil))

	for _, c := range []struct {
		q    string
		want error
		msg  string
	}{
		{`CREATE VIEW v AS SELECT 1`, engine.ErrTableExists, `relation "v" already exists`},
		{`CREATE VIEW t AS SELECT 1`, engine.ErrTableExists, `relation "t" already exists`},
		{`CREATE TABLE v (x BIGINT)`, engine.ErrTableExists, `"v"`},
		{`CREATE VIEW u AS SELECT * FROM nope`, sql.ErrUnknownTable, `"nope"`},
		{`CREATE OR REPLACE VIEW v AS SELECT k AS key FROM t`, engine.ErrViewDefinition, "cannot drop columns from view"},
		{`CREATE OR REPLACE VIEW v AS SELECT k AS id, s AS label FROM t`, engine.ErrViewDefinition, `cannot change name of view column "key" to "id"`},
		{`CREATE OR REPLACE VIEW v AS SELECT CAST(k AS INTEGER) AS key, s AS label FROM t`, engine.ErrViewDefinition, `cannot change data type of view column "key" from bigint to integer`},
		{`DROP TABLE t`, engine.ErrDependentObjects, "cannot drop table t because other objects depend on it"},
		{`DROP VIEW v`, engine.ErrDependentObjects, "cannot drop view v because other objects depend on it"},
		{`DROP TABLE v`, engine.ErrWrongObjectType, `"v" is not a table`},
		{`DROP VIEW t`, engine.ErrWrongObjectType, `"t" is not a view`},
		{`DROP VIEW nope`, engine.ErrUnknownTable, `view "nope" does not exist`},
		{`INSERT INTO v VALUES (9, 'z')`, sql.ErrUnsupported, `cannot change view "v"`},
		{`DELETE FROM v`, sql.ErrUnsupported, `cannot change view "v"`},
		{`CREATE VIEW p AS SELECT * FROM t WHERE k = $1`, sql.ErrParam, "parameters"},
	} {
		err := execErr(db, c.q)
		require.ErrorIs(t, err, c.want, c.q)
		require.ErrorContains(t, err, c.msg, c.q)
	}
	require.NoError(t, execErr(db, `DROP VIEW IF EXISTS nope`))

	// OR REPLACE may add columns after the old ones.
	run(t, db, `CREATE OR REPLACE VIEW v (key, label, twice) AS SELECT k, s, k * 2 FROM t WHERE s IS NOT NULL`, nil)
	require.Equal(t, [][]any{{int64(1), "a", int64(2)}}, run(t, db, `SELECT * FROM v ORDER BY key LIMIT 1`, nil))
	require.Equal(t, [][]any{{"key", "bigint", "YES"}, {"label", "text", "YES"}, {"twice", "bigint", "YES"}}, run(t, db, `DESCRIBE v`, nil))

	// A view that reads itself through another: PostgreSQL's infinite
	// recursion error, not a stack overflow.
	run(t, db, `CREATE VIEW a1 AS SELECT 1 AS x`, nil)
	run(t, db, `CREATE VIEW a2 AS SELECT x FROM a1`, nil)
	run(t, db, `CREATE OR REPLACE VIEW a1 AS SELECT x FROM a2`, nil)
	require.ErrorContains(t, execErr(db, `SELECT * FROM a1`), "infinite recursion")
	run(t, db, `CREATE OR REPLACE VIEW a1 AS SELECT 1 AS x`, nil)

	// Opened again: the same views, answering the same.
	db2 := open()
	require.Equal(t, [][]any{{int64(3)}}, run(t, db2, `SELECT n FROM w`, nil))
	views, err := db2.Views(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"a1", "a2", "v", "w"}, views)
	run(t, db2, `DROP VIEW w`, nil)
	run(t, db2, `DROP VIEW v`, nil)
	run(t, db2, `DROP TABLE t`, nil)
	require.ErrorIs(t, execErr(db2, `SELECT * FROM v`), sql.ErrUnknownTable)
}

// Concurrent CREATE VIEWs from two databases opened on one directory
// each claim the next catalog version with put-if-absent: none is lost.
func TestViewsConcurrentCreate(t *testing.T) {
	dir := t.TempDir()
	var dbs []*engine.DB
	for i := 0; i < 2; i++ {
		db, err := engine.Open(dir, engine.Options{Mem: exectest.Mem(t)})
		require.NoError(t, err)
		dbs = append(dbs, db)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				errs <- execErr(dbs[i], fmt.Sprintf(`CREATE VIEW v%d_%d AS SELECT %d AS x`, i, j, j))
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	views, err := dbs[0].Views(context.Background())
	require.NoError(t, err)
	require.Len(t, views, 20)
}

// A corrupt view catalog record is errkind.Corrupt naming the file, for
// a query of any view and for the listing.
func TestViewsCorruptRecord(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Mem: exectest.Mem(t)})
	require.NoError(t, err)
	run(t, db, `CREATE VIEW v AS SELECT 1 AS x`, nil)
	path := filepath.Join(dir, ".views", "00000000000000000001.srvw")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[len(b)/2] ^= 1
	require.NoError(t, os.WriteFile(path, b, 0o644))
	db2, err := engine.Open(dir, engine.Options{Mem: exectest.Mem(t)})
	require.NoError(t, err)
	err = execErr(db2, `SELECT * FROM v`)
	require.ErrorIs(t, err, errkind.Corrupt)
	require.ErrorIs(t, err, engine.ErrCorruptView)
	require.ErrorContains(t, err, "00000000000000000001.srvw")
	_, err = db2.Views(context.Background())
	require.ErrorIs(t, err, errkind.Corrupt)
}
