//go:build !race

package adbctest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/server"
)

// Not under the race detector: these tests drive a data race inside the
// ADBC Flight SQL driver (v1.12.0), not in stablerow.
//
// driver/flightsql/record_reader.go:69-70 (newRecordReader) declares one
// `var header, trailer metadata.MD` per reader and passes
// grpc.Header(&header), grpc.Trailer(&trailer) to the DoGet of every
// endpoint. gRPC writes both when a stream finishes (the call options'
// after hooks, grpc stream.go:1101, called from clientStream.finish), on
// whichever goroutine finishes it, and the driver reads them in
// adbcFromFlightStatusWithDetails (record_reader.go:154 for endpoint 0
// without a schema, :235 for the others) when a stream ended in error.
//   - Several endpoints read by one ExecuteQuery: every endpoint's
//     goroutine finishes its own stream at io.EOF (RecvMsg at
//     record_reader.go:222 -> stream.go:1049 -> :1101) and writes the same
//     two variables. `go test -race` reports it on every run
//     (TestExecuteQueryOfPartitions: "Write at ... stream.go:1101 ...
//     record_reader.go:222 / Previous write at ... stream.go:1101" from two
//     endpoint goroutines).
//   - A reader released mid-stream (TestClientGoesAway): rdr.Release
//     cancels the context, grpc's context watcher (stream.go:446) finishes
//     the stream and writes header and trailer, and the endpoint goroutine,
//     leaving its loop on ctx.Err() (record_reader.go:220) without another
//     RecvMsg, reads them at :235 with nothing ordering the two. It depends
//     on where the cancellation lands: 0 reports in 5 runs under -race here
//     (2026-12-03), reported by an earlier session; kept out for the same
//     cause rather than left to fail CI now and then.
// ReadPartition (flightsql_connection.go:1256) passes no such options, so
// partitions read on many goroutines are race-free and are tested under
// -race (partitions_test.go, docs_test.go). The server's side of a client
// going away is tested under -race in package server
// (TestClientGoneAndExpiry) with arrow-go's own client.

// TestClientGoesAway: a client that releases its reader after one batch
// of a huge result ends the query on the server, which releases all it
// held (the checked allocator is at zero when the test ends).
func TestClientGoesAway(t *testing.T) {
	ts := startServer(t, server.Options{})
	cn := mustConnect(t, ts.uri, nil)
	st, err := cn.NewStatement()
	require.NoError(t, err)
	defer st.Close()
	require.NoError(t, st.SetSqlQuery("SELECT g FROM generate_series(1, 1000000000) AS g(g)"))
	rdr, _, err := st.ExecuteQuery(context.Background())
	require.NoError(t, err)
	require.True(t, rdr.Next())
	rdr.Release()
	// The connection still works.
	require.Equal(t, [][]any{{int64(2)}}, query(t, cn, "SELECT CAST(1 AS BIGINT) + 1"))
}

// TestExecuteQueryOfPartitions: a client that runs a partitioned take
// with ExecuteQuery (the driver reads every endpoint) gets the whole
// answer: the same rows as the engine's, in fragment order.
func TestExecuteQueryOfPartitions(t *testing.T) {
	ts := startServer(t, server.Options{MaxEndpoints: 3})
	cn := mustConnect(t, ts.uri, nil)
	spreadTable(t, cn)
	ids := spreadIds(10000, 5)
	st := prepared(t, cn, takeQuery, int64List(ids))
	rdr, _, err := st.ExecuteQuery(context.Background())
	require.NoError(t, err)
	require.Equal(t, inProcess(t, ts.db, takeQuery, ids), byOrd(rowsOf(t, rdr)))
}
