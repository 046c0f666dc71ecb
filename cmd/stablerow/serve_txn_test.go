//go:build stablerow_full

package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// TestServeTransactions: Flight SQL BeginTransaction / EndTransaction on
// a served database, through arrow-go's client (Txn), as two users (alice
// by password, a static token): a transaction reads its own writes,
// another client sees them only once it commits, ROLLBACK publishes
// nothing, of two transactions changing the same row the second COMMIT is
// Aborted and publishes nothing, another user's call with the id is
// refused, and -transaction-ttl rolls an idle transaction back.
func TestServeTransactions(t *testing.T) {
	dir := t.TempDir()
	toks := filepath.Join(dir, "tokens")
	require.NoError(t, os.WriteFile(toks, []byte("other-user-token\n"), 0o600))
	addr, _ := serveLogged(t, []string{"STABLEROW_PASSWORD=s3cret"}, "-d", filepath.Join(dir, "db"), "-create",
		"-user", "alice", "-tokens", toks, "-transaction-ttl", "2s")
	cl := flightClient(t, addr)
	alice := login(t, cl, "alice", "s3cret")
	other := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer other-user-token")

	count := func(ctx context.Context, info *flight.FlightInfo, err error) int64 {
		t.Helper()
		require.NoError(t, err)
		rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		require.NoError(t, err)
		defer rdr.Release()
		require.True(t, rdr.Next(), "%v", rdr.Err())
		n := rdr.RecordBatch().Column(0).(*array.Int64).Value(0)
		// Read to the end: the result holds its transaction until then.
		for rdr.Next() {
		}
		require.NoError(t, rdr.Err())
		return n
	}
	countT := func(ctx context.Context) int64 {
		t.Helper()
		info, err := cl.Execute(ctx, "SELECT count(*) FROM t")
		return count(ctx, info, err)
	}
	_, err := cl.ExecuteUpdate(alice, "CREATE TABLE t (k BIGINT, v TEXT)")
	require.NoError(t, err)
	_, err = cl.ExecuteUpdate(alice, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
	require.NoError(t, err)

	// Read your writes inside; invisible to another client until COMMIT.
	tx, err := cl.BeginTransaction(alice)
	require.NoError(t, err)
	n, err := tx.ExecuteUpdate(alice, "INSERT INTO t VALUES (3, 'c')")
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	info, err := tx.Execute(alice, "SELECT count(*) FROM t")
	require.Equal(t, int64(3), count(alice, info, err))
	// A prepared statement made in the transaction runs in it.
	ps, err := tx.Prepare(alice, "SELECT count(*) FROM t WHERE k >= 2")
	require.NoError(t, err)
	info, err = ps.Execute(alice)
	require.Equal(t, int64(2), count(alice, info, err))
	require.NoError(t, ps.Close(alice))
	require.Equal(t, int64(2), countT(other))
	require.NoError(t, tx.Commit(alice))
	require.Equal(t, int64(3), countT(other))

	// ROLLBACK publishes nothing.
	tx, err = cl.BeginTransaction(alice)
	require.NoError(t, err)
	_, err = tx.ExecuteUpdate(alice, "DELETE FROM t")
	require.NoError(t, err)
	info, err = tx.Execute(alice, "SELECT count(*) FROM t")
	require.Equal(t, int64(0), count(alice, info, err))
	require.NoError(t, tx.Rollback(alice))
	require.Equal(t, int64(3), countT(alice))

	// Two transactions change the same row: the first COMMIT wins, the
	// second is Aborted (a serialization failure) and publishes nothing.
	tx1, err := cl.BeginTransaction(alice)
	require.NoError(t, err)
	tx2, err := cl.BeginTransaction(other)
	require.NoError(t, err)
	_, err = tx1.ExecuteUpdate(alice, "UPDATE t SET v = 'one' WHERE k = 1")
	require.NoError(t, err)
	_, err = tx2.ExecuteUpdate(other, "UPDATE t SET v = 'two' WHERE k = 1")
	require.NoError(t, err)
	_, err = tx2.ExecuteUpdate(other, "INSERT INTO t VALUES (9, 'lost')")
	require.NoError(t, err)
	require.NoError(t, tx1.Commit(alice))
	err = tx2.Commit(other)
	require.Equal(t, codes.Aborted, status.Code(err), "%v", err)
	info, err = cl.Execute(alice, "SELECT count(*) FROM t WHERE v = 'one'")
	require.Equal(t, int64(1), count(alice, info, err))
	require.Equal(t, int64(3), countT(alice))

	// Another user's call with the id is refused, and does not end it.
	tx, err = cl.BeginTransaction(alice)
	require.NoError(t, err)
	_, err = tx.ExecuteUpdate(alice, "INSERT INTO t VALUES (4, 'd')")
	require.NoError(t, err)
	id := tx.ID()
	err = endTxn(t, cl, other, id, pb.ActionEndTransactionRequest_END_TRANSACTION_COMMIT)
	require.Equal(t, codes.NotFound, status.Code(err), "%v", err)
	_, err = cl.Client.GetFlightInfo(other, statementIn(t, "SELECT count(*) FROM t", id))
	require.Equal(t, codes.NotFound, status.Code(err), "%v", err)
	require.Equal(t, int64(3), countT(alice))
	require.NoError(t, tx.Commit(alice))
	require.Equal(t, int64(4), countT(alice))

	// -transaction-ttl 2s: an idle transaction is rolled back, its id gone.
	tx, err = cl.BeginTransaction(alice)
	require.NoError(t, err)
	_, err = tx.ExecuteUpdate(alice, "INSERT INTO t VALUES (5, 'e')")
	require.NoError(t, err)
	time.Sleep(3 * time.Second)
	_, err = tx.ExecuteUpdate(alice, "INSERT INTO t VALUES (6, 'f')")
	require.Equal(t, codes.NotFound, status.Code(err), "%v", err)
	err = tx.Commit(alice)
	require.Equal(t, codes.NotFound, status.Code(err), "%v", err)
	require.Equal(t, int64(4), countT(alice))
}

// endTxn sends EndTransaction for id, as a client that has only the id.
func endTxn(t *testing.T, cl *flightsql.Client, ctx context.Context, id []byte, action pb.ActionEndTransactionRequest_EndTransaction) error {
	t.Helper()
	body, err := anypb.New(&pb.ActionEndTransactionRequest{TransactionId: id, Action: action})
	require.NoError(t, err)
	b, err := proto.Marshal(body)
	require.NoError(t, err)
	stream, err := cl.Client.DoAction(ctx, &flight.Action{Type: flightsql.EndTransactionActionType, Body: b})
	if err != nil {
		return err
	}
	return flight.ReadUntilEOF(stream)
}

// statementIn is the descriptor of a query in transaction id.
func statementIn(t *testing.T, query string, id []byte) *flight.FlightDescriptor {
	t.Helper()
	body, err := anypb.New(&pb.CommandStatementQuery{Query: query, TransactionId: id})
	require.NoError(t, err)
	b, err := proto.Marshal(body)
	require.NoError(t, err)
	return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: b}
}
