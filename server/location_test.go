package server

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/stablerow/stablerow/engine"
)

// TestAdvertisedLocationRead: with -advertise (Options.Location) set to
// an address that reaches the server under another name than the one it
// listens on, every endpoint of a take split into several names that
// address first, and arrow-go's Flight SQL client, dialling each
// endpoint's location on its own, reads the whole answer there.
func TestAdvertisedLocationRead(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 1024})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, port, err := net.SplitHostPort(lis.Addr().String())
	require.NoError(t, err)
	advertised := "grpc://localhost:" + port
	s, err := New(db, Options{Mem: mem, MaxEndpoints: 3, Location: advertised})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- s.Serve(lis) }()
	cl, err := flightsql.NewClient(lis.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() {
		cl.Close()
		s.Shutdown()
		require.NoError(t, <-done)
		mem.AssertSize(t, 0)
	})
	spreadTable(t, db, 20000)
	ctx := context.Background()
	ps, err := cl.Prepare(ctx, `SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`)
	require.NoError(t, err)
	defer ps.Close(ctx)
	ids := randomIDs(8000, 20000, 11)
	info, err := executeIDs(ctx, ps, mem, ids)
	require.NoError(t, err)
	require.Len(t, info.Endpoint, 3)
	rows := 0
	for _, ep := range info.Endpoint {
		require.Equal(t, []string{advertised, flight.LocationReuseConnection}, []string{ep.Location[0].Uri, ep.Location[1].Uri})
		lc, err := flightsql.NewClient(strings.TrimPrefix(ep.Location[0].Uri, "grpc://"), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
		require.NoError(t, err)
		for _, b := range readInfo(t, lc, &flight.FlightInfo{Endpoint: []*flight.FlightEndpoint{ep}}) {
			rows += int(b.NumRows())
		}
		require.NoError(t, lc.Close())
	}
	require.Equal(t, len(ids), rows)
}
