package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
)

// twoTablesDB is txnDB plus u(k, v) holding k = 1..3, v = k*100.
func twoTablesDB(t *testing.T) (*engine.DB, string) {
	t.Helper()
	db, dir := txnDB(t)
	run(t, db, `CREATE TABLE u (k BIGINT NOT NULL, v BIGINT)`, nil)
	run(t, db, `INSERT INTO u VALUES (1, 100), (2, 200), (3, 300)`, nil)
	return db, dir
}

// sums is each table's count and sum of v, read by one statement (one
// snapshot of both).
const sums = `SELECT (SELECT count(*) FROM t), (SELECT sum(v) FROM t), (SELECT count(*) FROM u), (SELECT sum(v) FROM u)`

// A block that writes two tables publishes both at COMMIT, at once:
// another session sees neither before, both after, and readers looping
// through the COMMIT (each statement one snapshot of both tables) see
// the state before or the state after, never a mix. A database opened
// again afterwards (the records live beside the tables) reads both.
func TestTxnTwoTablesCommitAtOnce(t *testing.T) {
	db, dir := twoTablesDB(t)
	before := run(t, db, sums, nil)
	vt, vu := version(t, db, "t"), version(t, db, "u")
	s := db.NewSession()
	defer s.Close()
	sessRun(t, s, `BEGIN`)
	sessRun(t, s, `INSERT INTO t VALUES (4, 40)`)
	sessRun(t, s, `UPDATE u SET v = v + 1 WHERE k = 2`)
	sessRun(t, s, `INSERT INTO u SELECT k + 10, v FROM t WHERE k <= 2`)
	sessRun(t, s, `DELETE FROM t WHERE k = 1`)
	inside := sessRun(t, s, sums)
	require.Equal(t, before, run(t, db, sums, nil), "nothing visible before COMMIT")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	errc := make(chan error, 1)
	var reads [2]int
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			res, err := db.Exec(context.Background(), sums, nil)
			if err == nil {
				var rows [][]any
				rows, err = exectest.Rows(res.Batches...)
				res.Release()
				switch {
				case err != nil:
				case fmt.Sprint(rows) == fmt.Sprint(before):
					reads[0]++
					continue
				case fmt.Sprint(rows) == fmt.Sprint(inside):
					reads[1]++
					continue
				default:
					err = fmt.Errorf("half a transaction: %v (before %v, after %v)", rows, before, inside)
				}
			}
			errc <- err
			return
		}
	}()
	time.Sleep(5 * time.Millisecond)
	sessRun(t, s, `COMMIT`)
	time.Sleep(5 * time.Millisecond)
	close(stop)
	wg.Wait()
	select {
	case err := <-errc:
		t.Fatal(err)
	default:
	}
	t.Logf("reads before: %d, after: %d", reads[0], reads[1])
	require.Equal(t, inside, run(t, db, sums, nil))
	require.Equal(t, vt+1, version(t, db, "t"), "one version per table")
	require.Equal(t, vu+1, version(t, db, "u"))

	db2, err := engine.Open(dir, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, inside, run(t, db2, sums, nil))
	run(t, db2, `INSERT INTO t VALUES (5, 50)`, nil)
	require.Equal(t, vt+2, version(t, db2, "t"), "the next writer builds on the committed claim")
}

// ROLLBACK of a block that wrote two tables publishes neither; VACUUM
// afterwards reclaims its files and reads every table.
func TestTxnTwoTablesRollback(t *testing.T) {
	db, _ := twoTablesDB(t)
	before := run(t, db, sums, nil)
	s := db.NewSession()
	defer s.Close()
	sessRun(t, s, `BEGIN`)
	sessRun(t, s, `INSERT INTO t VALUES (4, 40)`)
	sessRun(t, s, `DELETE FROM u WHERE k = 3`)
	sessRun(t, s, `ROLLBACK`)
	require.Equal(t, before, run(t, db, sums, nil))
	rep, err := db.Vacuum(context.Background(), "", engine.VacuumOptions{Grace: -1})
	require.NoError(t, err)
	var deleted int
	for _, tv := range rep.Tables {
		deleted += tv.FilesDeleted
	}
	require.NotZero(t, deleted, "the rolled-back block's files are orphans")
	require.Equal(t, before, run(t, db, sums, nil))
}

// A concurrent commit that changed a row the block changes in the second
// table: COMMIT fails with the serialization error (errkind.Conflict) and
// neither table shows anything of the block, although its first table was
// claimed. The next writer of that table goes on at once, and VACUUM
// reads past the aborted claim.
func TestTxnTwoTablesConflictOnSecond(t *testing.T) {
	db, _ := twoTablesDB(t)
	s := db.NewSession()
	defer s.Close()
	sessRun(t, s, `BEGIN`)
	sessRun(t, s, `INSERT INTO t VALUES (4, 40)`)
	sessRun(t, s, `UPDATE u SET v = v + 1 WHERE k = 2`)
	run(t, db, `UPDATE u SET v = 0 WHERE k = 2`, nil) // another session, first
	after := run(t, db, sums, nil)
	_, err := s.Exec(context.Background(), `COMMIT`, nil)
	require.ErrorIs(t, err, engine.ErrSerialization)
	require.True(t, errors.Is(err, errkind.Conflict), "%v", err)
	require.Equal(t, engine.TxIdle, s.Status())
	require.Equal(t, after, run(t, db, sums, nil), "nothing of the block")

	start := time.Now()
	run(t, db, `INSERT INTO t VALUES (5, 50)`, nil)
	require.Less(t, time.Since(start), table.DefaultClaimGrace/2, "the aborted claim is not waited on")
	_, err = db.Vacuum(context.Background(), "", engine.VacuumOptions{Grace: -1})
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(4), int64(110), int64(3), int64(400)}}, run(t, db, sums, nil))
}

// A database in memory has its own transaction store: a block of two
// tables commits there too, and a statement inside sees its own writes
// to both.
func TestTxnTwoTablesInMemory(t *testing.T) {
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	run(t, db, `CREATE TABLE t (k BIGINT); CREATE TABLE u (k BIGINT)`, nil)
	run(t, db, `BEGIN; INSERT INTO t VALUES (1); INSERT INTO u SELECT k + 1 FROM t; COMMIT`, nil)
	require.Equal(t, [][]any{{int64(1), int64(2)}}, run(t, db, `SELECT t.k, u.k FROM t, u`, nil))
}

// Transfers between two tables by concurrent sessions, each a block that
// takes from an account of one table and gives to an account of the
// other, retried on ErrSerialization, while a reader's statements (each
// one snapshot of both tables) check the total: every reader sees it
// conserved (never one table's half of a transfer), and at the end every
// transfer landed in both tables once.
func TestTxnTwoTablesTransfersConserveTotal(t *testing.T) {
	ctx := context.Background()
	db, err := engine.Open(t.TempDir(), engine.Options{Table: table.Options{MaxRowsPerFragment: 4, BatchRows: 2}})
	require.NoError(t, err)
	run(t, db, `CREATE TABLE x (k BIGINT NOT NULL, bal BIGINT NOT NULL); CREATE TABLE y (k BIGINT NOT NULL, bal BIGINT NOT NULL)`, nil)
	run(t, db, `INSERT INTO x SELECT g, 100 FROM generate_series(1, 4) AS g(g); INSERT INTO y SELECT g, 100 FROM generate_series(1, 4) AS g(g)`, nil)
	const total = `SELECT (SELECT sum(bal) FROM x) + (SELECT sum(bal) FROM y), (SELECT count(*) FROM x) + (SELECT count(*) FROM y)`
	const workers, each = 3, 10
	var wg sync.WaitGroup
	var committed, conflicts, reads atomic.Int64
	errs := make(chan error, workers+1)
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			res, err := db.Exec(ctx, total, nil)
			if err == nil {
				var rows [][]any
				rows, err = exectest.Rows(res.Batches...)
				res.Release()
				if err == nil && fmt.Sprint(rows) != "[[800 8]]" {
					err = fmt.Errorf("a reader saw %v: half a transfer", rows)
				}
			}
			if err != nil {
				errs <- err
				return
			}
			reads.Add(1)
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := db.NewSession()
			defer s.Close()
			for i := range each {
				from, to := 1+(w+i)%4, 1+(w+2*i)%4
				src, dst := "x", "y"
				if (w+i)%2 == 1 {
					src, dst = "y", "x"
				}
				for {
					_, err := s.Exec(ctx, fmt.Sprintf(`BEGIN; UPDATE %s SET bal = bal - 1 WHERE k = %d; UPDATE %s SET bal = bal + 1 WHERE k = %d; COMMIT`, src, from, dst, to), nil)
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
	close(stop)
	<-readerDone
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	require.EqualValues(t, workers*each, committed.Load())
	require.NotZero(t, reads.Load())
	t.Logf("%d transfers committed, %d serialization failures retried, %d reads", committed.Load(), conflicts.Load(), reads.Load())
	require.Equal(t, [][]any{{int64(800), int64(8)}}, run(t, db, total, nil))
}
