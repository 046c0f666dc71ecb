//go:build stablerow_full

package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
)

// TestServeSplitFlags: `stablerow serve -max-endpoints 3
// -split-min-ids 1000`, run as a subprocess: a take of 2000 bound ids
// over a table of four fragments comes back as 3 endpoints, one of 999 ids
// as one; read in full, each has one row per input id and each row is
// the id's (k was inserted equal to the row id).
func TestServeSplitFlags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	addr := serveProcess(t, "-d", dir, "-create", "-max-endpoints", "3", "-split-min-ids", "1000")
	ctx := context.Background()
	cl := flightClient(t, addr)
	fillTable(t, cl, "k BIGINT NOT NULL", "g", 4000, 1000)
	ps, err := cl.Prepare(ctx, takeStatement)
	require.NoError(t, err)
	defer ps.Close(ctx)
	for _, c := range []struct{ ids, endpoints int }{{2000, 3}, {999, 1}} {
		ids := make([]int64, c.ids)
		for i := range ids {
			ids[i] = int64((i * 7919) % 4000) // every fragment, in no order
		}
		info := executeTake(t, ps, ids)
		require.Len(t, info.Endpoint, c.endpoints, "%d ids", c.ids)
		seen := make([]bool, len(ids))
		for _, e := range info.Endpoint {
			readEndpoint(t, cl, e, func(ord, rowid, k int64) {
				require.False(t, seen[ord-1], "ord %d twice", ord)
				seen[ord-1] = true
				require.Equal(t, ids[ord-1], rowid)
				require.Equal(t, rowid, k)
			})
		}
		require.NotContains(t, seen, false, "every id answered")
	}
}

// readEndpoint reads one endpoint of (ord, rowid, k) rows.
func readEndpoint(t *testing.T, cl *flightsql.Client, e *flight.FlightEndpoint, row func(ord, rowid, k int64)) {
	t.Helper()
	rdr, err := cl.DoGet(context.Background(), e.Ticket)
	require.NoError(t, err)
	defer rdr.Release()
	for rdr.Next() {
		b := rdr.RecordBatch()
		for i := range int(b.NumRows()) {
			row(b.Column(0).(*array.Int64).Value(i), b.Column(1).(*array.Int64).Value(i), b.Column(2).(*array.Int64).Value(i))
		}
	}
	require.NoError(t, rdr.Err())
}
