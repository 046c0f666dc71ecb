package server

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
)

// TestTransactionOneCallAtATime: a query's result holds its transaction
// until its DoGet has read it: another call on the transaction meanwhile
// fails at once with FailedPrecondition (it does not wait: the client
// would wait for itself), and works once the result is read.
func TestTransactionOneCallAtATime(t *testing.T) {
	ctx := context.Background()
	s, cl, _ := testServer(t, Options{})
	_, err := s.db.Exec(ctx, `CREATE TABLE t (k BIGINT); INSERT INTO t VALUES (1), (2)`, nil)
	require.NoError(t, err)
	tx, err := cl.BeginTransaction(ctx)
	require.NoError(t, err)
	info, err := tx.Execute(ctx, `SELECT k FROM t`)
	require.NoError(t, err)
	_, err = tx.ExecuteUpdate(ctx, `INSERT INTO t VALUES (3)`)
	require.Equal(t, codes.FailedPrecondition, code(err), "%v", err)
	n, err := readAll(ctx, cl, info)
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	_, err = tx.ExecuteUpdate(ctx, `INSERT INTO t VALUES (3)`)
	require.NoError(t, err)
	require.NoError(t, tx.Commit(ctx))
	info, err = cl.Execute(ctx, `SELECT k FROM t`)
	require.NoError(t, err)
	n, err = readAll(ctx, cl, info)
	require.NoError(t, err)
	require.Equal(t, int64(3), n)
}

// TestTransactionFailedCommit: after an error inside, COMMIT rolls back
// (as PostgreSQL answers COMMIT of a failed block with ROLLBACK) and says
// so with Aborted; the statement that failed aborts the block.
func TestTransactionFailedCommit(t *testing.T) {
	ctx := context.Background()
	s, cl, _ := testServer(t, Options{})
	_, err := s.db.Exec(ctx, `CREATE TABLE t (k BIGINT); CREATE TABLE u (k BIGINT)`, nil)
	require.NoError(t, err)
	tx, err := cl.BeginTransaction(ctx)
	require.NoError(t, err)
	_, err = tx.ExecuteUpdate(ctx, `INSERT INTO t VALUES (1)`)
	require.NoError(t, err)
	_, err = tx.ExecuteUpdate(ctx, `INSERT INTO u SELECT 1 / (k - k) FROM t`)
	require.Equal(t, codes.InvalidArgument, code(err), "%v", err)
	_, err = tx.ExecuteUpdate(ctx, `INSERT INTO t VALUES (2)`)
	require.Equal(t, codes.InvalidArgument, code(err), "%v", err) // aborted block
	err = tx.Commit(ctx)
	require.Equal(t, codes.Aborted, code(err), "%v", err)
	res, err := s.db.Exec(ctx, `SELECT k FROM t`, nil)
	require.NoError(t, err)
	require.Zero(t, res.NumRows())
}

// TestTransactionTwoTables: a Flight SQL transaction that writes two
// tables commits both at once (engine.Session's COMMIT); another
// connection sees neither before Commit, both after.
func TestTransactionTwoTables(t *testing.T) {
	ctx := context.Background()
	s, cl, _ := testServer(t, Options{})
	_, err := s.db.Exec(ctx, `CREATE TABLE t (k BIGINT); CREATE TABLE u (k BIGINT)`, nil)
	require.NoError(t, err)
	tx, err := cl.BeginTransaction(ctx)
	require.NoError(t, err)
	_, err = tx.ExecuteUpdate(ctx, `INSERT INTO t VALUES (1), (2)`)
	require.NoError(t, err)
	_, err = tx.ExecuteUpdate(ctx, `INSERT INTO u SELECT k FROM t`)
	require.NoError(t, err)
	both := func() int64 {
		info, err := cl.Execute(ctx, `SELECT k FROM t UNION ALL SELECT k FROM u`)
		require.NoError(t, err)
		n, err := readAll(ctx, cl, info)
		require.NoError(t, err)
		return n
	}
	require.Zero(t, both())
	require.NoError(t, tx.Commit(ctx))
	require.Equal(t, int64(4), both())
}

// TestTransactionShutdown: Shutdown rolls back a transaction still open
// (and one whose result nobody read).
func TestTransactionShutdown(t *testing.T) {
	ctx := context.Background()
	s, cl, _ := testServer(t, Options{TransactionTTL: time.Hour})
	_, err := s.db.Exec(ctx, `CREATE TABLE t (k BIGINT)`, nil)
	require.NoError(t, err)
	tx, err := cl.BeginTransaction(ctx)
	require.NoError(t, err)
	_, err = tx.ExecuteUpdate(ctx, `INSERT INTO t VALUES (1)`)
	require.NoError(t, err)
	_, err = tx.Execute(ctx, `SELECT k FROM t`)
	require.NoError(t, err)
	s.Shutdown()
	s.mu.Lock()
	require.Empty(t, s.txns)
	s.mu.Unlock()
	res, err := s.db.Exec(ctx, `SELECT k FROM t`, nil)
	require.NoError(t, err)
	require.Zero(t, res.NumRows())
}
