package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
)

// sessRun runs q in session s and returns its rows.
func sessRun(t *testing.T, s *engine.Session, q string) [][]any {
	t.Helper()
	res, err := s.Exec(context.Background(), q, nil)
	require.NoError(t, err, q)
	defer res.Release()
	rows, err := exectest.Rows(res.Batches...)
	require.NoError(t, err)
	return rows
}

// txnDB is a database on disk with t(k, v) holding k = 1..3, v = k*10, in
// fragments of 2 rows (so the rows of a transaction and of a concurrent
// writer share fragments).
func txnDB(t *testing.T) (*engine.DB, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Mem: exectest.Mem(t), Table: table.Options{MaxRowsPerFragment: 2, BatchRows: 2}})
	require.NoError(t, err)
	run(t, db, `CREATE TABLE t (k BIGINT NOT NULL, v BIGINT)`, nil)
	run(t, db, `INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)`, nil)
	return db, dir
}

func version(t *testing.T, db *engine.DB, name string) uint64 {
	t.Helper()
	tb, err := db.Table(context.Background(), name)
	require.NoError(t, err)
	return tb.Version()
}

const allRows = `SELECT k, v FROM t ORDER BY k`

// Read-your-writes: the transaction sees its INSERT, DELETE and UPDATE
// (including of rows it inserted itself); another session sees none of it
// until COMMIT, which publishes all of it as one version.
func TestTxnReadYourWritesOneVersion(t *testing.T) {
	db, _ := txnDB(t)
	before := version(t, db, "t")
	s := db.NewSession()
	defer s.Close()
	sessRun(t, s, `BEGIN`)
	require.Equal(t, engine.TxInBlock, s.Status())
	sessRun(t, s, `INSERT INTO t VALUES (4, 40), (5, 50), (6, 60)`)
	sessRun(t, s, `DELETE FROM t WHERE k IN (1, 5)`)     // a base row and an own row
	sessRun(t, s, `UPDATE t SET v = v + 1 WHERE k >= 3`) // base and own rows
	sessRun(t, s, `UPDATE t SET v = v + 1 WHERE k = 6`)  // an own row moved twice
	want := [][]any{{int64(2), int64(20)}, {int64(3), int64(31)}, {int64(4), int64(41)}, {int64(6), int64(62)}}
	require.Equal(t, want, sessRun(t, s, allRows))
	// Others see the last published version only.
	require.Equal(t, [][]any{{int64(1), int64(10)}, {int64(2), int64(20)}, {int64(3), int64(30)}}, run(t, db, allRows, nil))
	require.Equal(t, before, version(t, db, "t"))
	sessRun(t, s, `COMMIT`)
	require.Equal(t, engine.TxIdle, s.Status())
	require.Equal(t, want, run(t, db, allRows, nil))
	require.Equal(t, before+1, version(t, db, "t"), "one version for the whole transaction")
	// Row ids stay unique.
	require.Equal(t, [][]any{{int64(4), int64(4)}}, run(t, db, `SELECT count(*), count(DISTINCT _rowid) FROM t`, nil))
}

// Isolation: the transaction's snapshot is pinned at its first read; a
// concurrent commit is invisible to it, and its own writes to another
// session.
func TestTxnSnapshotIsolation(t *testing.T) {
	db, _ := txnDB(t)
	s := db.NewSession()
	defer s.Close()
	sessRun(t, s, `BEGIN`)
	require.Equal(t, [][]any{{int64(3)}}, sessRun(t, s, `SELECT count(*) FROM t`))
	run(t, db, `INSERT INTO t VALUES (7, 70)`, nil)
	require.Equal(t, [][]any{{int64(3)}}, sessRun(t, s, `SELECT count(*) FROM t`), "pinned snapshot")
	// A concurrent append and the transaction's own append both land,
	// with distinct row ids (the transaction's renumbered past the other's).
	sessRun(t, s, `INSERT INTO t VALUES (8, 80)`)
	require.Equal(t, [][]any{{int64(4)}}, sessRun(t, s, `SELECT count(*) FROM t`))
	require.Equal(t, [][]any{{int64(4)}}, run(t, db, `SELECT count(*) FROM t`, nil))
	sessRun(t, s, `COMMIT`)
	require.Equal(t, [][]any{{int64(5), int64(5)}}, run(t, db, `SELECT count(*), count(DISTINCT _rowid) FROM t`, nil))
}

// Two writers changing the same row: the second to commit gets the typed
// serialization failure and publishes nothing; changes to other rows of
// the same fragment rebase.
func TestTxnConflictFirstCommitterWins(t *testing.T) {
	db, dir := txnDB(t)
	s := db.NewSession()
	defer s.Close()
	// Different rows of the same fragment (k = 1 and 2 share the first):
	// rebased.
	sessRun(t, s, `BEGIN`)
	sessRun(t, s, `UPDATE t SET v = 13 WHERE k = 1`)
	run(t, db, `UPDATE t SET v = 21 WHERE k = 2`, nil)
	sessRun(t, s, `COMMIT`)
	require.Equal(t, [][]any{{int64(1), int64(13)}, {int64(2), int64(21)}, {int64(3), int64(30)}}, run(t, db, allRows, nil))

	sessRun(t, s, `BEGIN`)
	sessRun(t, s, `UPDATE t SET v = 11 WHERE k = 1`)
	sessRun(t, s, `INSERT INTO t VALUES (9, 90)`)
	run(t, db, `UPDATE t SET v = 12 WHERE k = 1`, nil)
	v := version(t, db, "t")
	_, err := s.Exec(context.Background(), `COMMIT`, nil)
	require.Error(t, err)
	require.True(t, errors.Is(err, errkind.Conflict), "%v", err)
	require.ErrorIs(t, err, engine.ErrSerialization)
	require.Contains(t, err.Error(), "could not serialize access due to concurrent update")
	require.Equal(t, engine.TxIdle, s.Status(), "a failed COMMIT ends the transaction")
	require.Equal(t, v, version(t, db, "t"), "nothing published")
	require.Equal(t, [][]any{{int64(1), int64(12)}, {int64(2), int64(21)}, {int64(3), int64(30)}}, run(t, db, allRows, nil))

	// Deleting a row another session deleted meanwhile conflicts too.
	sessRun(t, s, `BEGIN`)
	sessRun(t, s, `DELETE FROM t WHERE k = 3`)
	run(t, db, `DELETE FROM t WHERE k = 3`, nil)
	_, err = s.Exec(context.Background(), `COMMIT`, nil)
	require.ErrorIs(t, err, engine.ErrSerialization)

	// A table dropped while a block writes it: COMMIT fails and does not
	// bring the table back.
	run(t, db, `CREATE TABLE u (k BIGINT)`, nil)
	sessRun(t, s, `BEGIN`)
	sessRun(t, s, `INSERT INTO u VALUES (1)`)
	run(t, db, `DROP TABLE u`, nil)
	_, err = s.Exec(context.Background(), `COMMIT`, nil)
	require.ErrorIs(t, err, engine.ErrSerialization)
	require.Equal(t, []string{"t"}, db.Tables())
	_, err = os.Stat(filepath.Join(dir, "u"))
	require.True(t, os.IsNotExist(err), "%v", err)
}

// ROLLBACK, an error, and a session abandoned without COMMIT publish
// nothing; a database opened afresh finds the last committed version.
func TestTxnRollbackAndAbandonPublishNothing(t *testing.T) {
	db, dir := txnDB(t)
	v := version(t, db, "t")
	s := db.NewSession()
	sessRun(t, s, `BEGIN`)
	sessRun(t, s, `INSERT INTO t VALUES (4, 40)`)
	sessRun(t, s, `ROLLBACK`)
	require.Equal(t, v, version(t, db, "t"))
	require.Equal(t, [][]any{{int64(3)}}, run(t, db, `SELECT count(*) FROM t`, nil))

	// An error aborts the block: later statements are refused until
	// ROLLBACK, and the writes before the error are gone.
	sessRun(t, s, `BEGIN`)
	sessRun(t, s, `INSERT INTO t VALUES (5, 50)`)
	_, err := s.Exec(context.Background(), `SELECT 1 / 0`, nil)
	require.Error(t, err)
	require.Equal(t, engine.TxInFailed, s.Status())
	_, err = s.Exec(context.Background(), `SELECT count(*) FROM t`, nil)
	require.ErrorIs(t, err, engine.ErrTxnAborted)
	res, err := s.Exec(context.Background(), `COMMIT`, nil)
	require.NoError(t, err)
	require.Equal(t, engine.TxIdle, s.Status())
	_ = res
	require.Equal(t, v, version(t, db, "t"), "COMMIT of a failed block rolls back")

	// Abandoned: written files, no COMMIT, no Close.
	s2 := db.NewSession()
	sessRun(t, s2, `BEGIN`)
	sessRun(t, s2, `INSERT INTO t SELECT g, g FROM generate_series(100, 120) AS g(g)`)
	db2, err := engine.Open(dir, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, v, version(t, db2, "t"))
	require.Equal(t, [][]any{{int64(3)}}, run(t, db2, `SELECT count(*) FROM t`, nil))
}

// A script run by DB.Exec is a session of its own: its BEGIN ... COMMIT is
// one transaction; one it leaves open is rolled back and is an error (a
// BEGIN sent alone must not look like an open transaction).
func TestTxnInScript(t *testing.T) {
	db, _ := txnDB(t)
	v := version(t, db, "t")
	run(t, db, `BEGIN; INSERT INTO t VALUES (4, 40); DELETE FROM t WHERE k = 1; COMMIT`, nil)
	require.Equal(t, v+1, version(t, db, "t"))
	for _, q := range []string{`BEGIN; INSERT INTO t VALUES (5, 50)`, `BEGIN`} {
		_, err := db.Exec(context.Background(), q, nil)
		require.ErrorIs(t, err, engine.ErrInTransaction, q)
		require.Contains(t, err.Error(), "rolled back")
	}
	require.Equal(t, [][]any{{int64(3)}}, run(t, db, `SELECT count(*) FROM t`, nil))
	require.Equal(t, v+1, version(t, db, "t"))
}

// What a transaction refuses, with typed errors: statements a ROLLBACK
// could not undo.
func TestTxnRefusals(t *testing.T) {
	db, _ := txnDB(t)
	run(t, db, `CREATE TABLE u (k BIGINT)`, nil)
	s := db.NewSession()
	defer s.Close()
	for _, q := range []string{`CREATE TABLE w (k BIGINT)`, `CREATE INDEX kx ON t (k)`, `VACUUM`, `DROP TABLE u`, `SET threads = 1`} {
		sessRun(t, s, `BEGIN`)
		_, err := s.Exec(context.Background(), q, nil)
		require.ErrorIs(t, err, engine.ErrInTransaction, q)
		require.True(t, errors.Is(err, errkind.Unsupported), q)
		sessRun(t, s, `ROLLBACK`)
	}
	require.Equal(t, []string{"t", "u"}, db.Tables())
	// Outside a block, COMMIT and ROLLBACK only warn, as in PostgreSQL.
	rows, err := s.Query(context.Background(), `COMMIT`, nil)
	require.NoError(t, err)
	require.Contains(t, rows.Summary(), "there is no transaction in progress")
	require.NoError(t, rows.Close())
	_, err = s.Exec(context.Background(), `BEGIN ISOLATION LEVEL SERIALIZABLE`, nil)
	require.True(t, errors.Is(err, errkind.Unsupported), "%v", err)
	sessRun(t, s, `START TRANSACTION ISOLATION LEVEL REPEATABLE READ`)
	sessRun(t, s, `END`)
	sessRun(t, s, `BEGIN TRANSACTION`)
	sessRun(t, s, `ABORT`)
}

// Transfers between accounts by concurrent sessions, each a block of two
// UPDATEs that read the block's snapshot and retried on a serialization
// failure: with first committer wins no update is lost, so the total
// never changes, and every COMMIT that succeeded is in it.
func TestTxnConcurrentTransfersConserveTotal(t *testing.T) {
	ctx := context.Background()
	db, err := engine.Open(t.TempDir(), engine.Options{Table: table.Options{MaxRowsPerFragment: 4, BatchRows: 2}})
	require.NoError(t, err)
	run(t, db, `CREATE TABLE acct (k BIGINT NOT NULL, bal BIGINT NOT NULL)`, nil)
	run(t, db, `INSERT INTO acct SELECT g, 100 FROM generate_series(1, 8) AS g(g)`, nil)
	const workers, each = 4, 15
	var wg sync.WaitGroup
	var committed, conflicts atomic.Int64
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := db.NewSession()
			defer s.Close()
			for i := range each {
				from, to := 1+(w+i)%8, 1+(w+3*i+1)%8
				if from == to {
					to = 1 + to%8
				}
				for {
					_, err := s.Exec(ctx, fmt.Sprintf(`BEGIN; UPDATE acct SET bal = bal - 1 WHERE k = %d; UPDATE acct SET bal = bal + 1 WHERE k = %d; COMMIT`, from, to), nil)
					if err == nil {
						committed.Add(1)
						break
					}
					if !errors.Is(err, engine.ErrSerialization) {
						errs <- err
						return
					}
					conflicts.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	require.EqualValues(t, workers*each, committed.Load())
	t.Logf("%d transfers committed, %d serialization failures retried", committed.Load(), conflicts.Load())
	require.Equal(t, [][]any{{int64(8), int64(800), int64(8)}}, run(t, db, `SELECT count(*), sum(bal), count(DISTINCT _rowid) FROM acct`, nil))
}
