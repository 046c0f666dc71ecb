//go:build !race

package adbctest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/server"
)

// Not under the race detector: ADBC v1.12.0's record reader
// (driver/flightsql/record_reader.go:235) reads the call's header and
// trailer metadata while gRPC writes them as the cancelled stream
// finishes, a data race in the client. The server's side of a client
// going away is tested under -race in package server
// (TestClientGoneAndExpiry) with arrow-go's client.

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
	require.Equal(t, [][]any{{int64(2)}}, query(t, cn, "SELECT 1 + 1"))
}
