//go:build stablerow_full

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// TestServeFlightMetadata: `stablerow serve` as a subprocess, asked by
// arrow-go's Flight SQL client what JDBC drivers and GUI tools ask on
// connect: a prepared statement's parameter schema, the type info, the
// SQL info, the keys; and a take split into endpoints a client
// reads from their locations, the server's own address or the one
// -advertise gives.
func TestServeFlightMetadata(t *testing.T) {
	addr := serveProcess(t, "-d", filepath.Join(t.TempDir(), "db"), "-create", "-max-endpoints", "3", "-split-min-ids", "1000")
	ctx := context.Background()
	cl := flightClient(t, addr)
	fillTable(t, cl, "k BIGINT NOT NULL, s TEXT", "g, 's'", 4000, 1000)

	// The parameter schema.
	ps, err := cl.Prepare(ctx, `SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) JOIN t ON t._rowid = v.rowid`)
	require.NoError(t, err)
	defer ps.Close(ctx)
	require.True(t, arrow.NewSchema([]arrow.Field{{Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true}}, nil).Equal(ps.ParameterSchema()),
		"%s", ps.ParameterSchema())
	ps2, err := cl.Prepare(ctx, `SELECT k FROM t WHERE s = $1 AND k < $2`)
	require.NoError(t, err)
	require.Equal(t, []arrow.Type{arrow.STRING, arrow.INT64}, []arrow.Type{ps2.ParameterSchema().Field(0).Type.ID(), ps2.ParameterSchema().Field(1).Type.ID()})
	require.NoError(t, ps2.Close(ctx))

	// The dataset schema: the rows' schema, planned and not run; none
	// (no fields, an update) for a statement without rows.
	require.True(t, arrow.NewSchema([]arrow.Field{{Name: "ord", Type: arrow.PrimitiveTypes.Int64}, {Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil).Equal(ps.DatasetSchema()),
		"%s", ps.DatasetSchema())
	ps3, err := cl.Prepare(ctx, `DELETE FROM t`)
	require.NoError(t, err)
	require.Zero(t, ps3.DatasetSchema().NumFields())
	update, ok := ps3.IsUpdate()
	require.True(t, ok && update)
	require.NoError(t, ps3.Close(ctx))
	info, err := cl.Execute(ctx, `SELECT count(*) FROM t`)
	require.NoError(t, err)
	r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	require.True(t, r.Next())
	require.Equal(t, int64(4000), r.RecordBatch().Column(0).(*array.Int64).Value(0)) // prepared, the DELETE did not run
	r.Release()

	// Type info, SQL info, keys.
	info, err = cl.GetXdbcTypeInfo(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, 12, countRows(t, cl, info))
	info, err = cl.GetSqlInfo(ctx, []flightsql.SqlInfo{flightsql.SqlInfoIdentifierQuoteChar, flightsql.SqlInfoTransactionsSupported})
	require.NoError(t, err)
	require.Equal(t, 2, countRows(t, cl, info))
	ref := flightsql.TableRef{Table: "t"}
	for _, get := range []func() (*flight.FlightInfo, error){
		func() (*flight.FlightInfo, error) { return cl.GetPrimaryKeys(ctx, ref) },
		func() (*flight.FlightInfo, error) { return cl.GetImportedKeys(ctx, ref) },
		func() (*flight.FlightInfo, error) { return cl.GetExportedKeys(ctx, ref) },
		func() (*flight.FlightInfo, error) { return cl.GetCrossReference(ctx, ref, ref) },
	} {
		info, err := get()
		require.NoError(t, err)
		require.Zero(t, countRows(t, cl, info))
	}

	// Each endpoint of a take, read from its location by a client of its
	// own (as another process handed the endpoint would).
	ids := make([]int64, 2000)
	for i := range ids {
		ids[i] = int64((i * 7919) % 4000)
	}
	info = executeTake(t, ps, ids)
	require.Len(t, info.Endpoint, 3)
	rows := 0
	for _, ep := range info.Endpoint {
		require.NotEmpty(t, ep.Location)
		require.Equal(t, "grpc://"+addr, ep.Location[0].Uri)
		lc, err := flightsql.NewClient(strings.TrimPrefix(ep.Location[0].Uri, "grpc://"), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
		require.NoError(t, err)
		rows += countRows(t, lc, &flight.FlightInfo{Endpoint: []*flight.FlightEndpoint{ep}})
		require.NoError(t, lc.Close())
	}
	require.Equal(t, len(ids), rows)
}

// TestServeAdvertise: -advertise is the URI endpoints name; a bad one is
// refused before the server starts. (The split flags are spelled here by
// their deprecated names, -partitions and -partition-min-ids, which still
// split the take into two endpoints.)
func TestServeAdvertise(t *testing.T) {
	addr := serveProcess(t, "-d", filepath.Join(t.TempDir(), "db"), "-create", "-partitions", "2", "-partition-min-ids", "10",
		"-advertise", "grpc+tls://db.example.com:443")
	ctx := context.Background()
	cl := flightClient(t, addr)
	fillTable(t, cl, "k BIGINT NOT NULL", "g", 200, 100)
	ps, err := cl.Prepare(ctx, takeStatement)
	require.NoError(t, err)
	defer ps.Close(ctx)
	ids := make([]int64, 200)
	for i := range ids {
		ids[i] = int64(i)
	}
	info := executeTake(t, ps, ids)
	require.Len(t, info.Endpoint, 2)
	for _, ep := range info.Endpoint {
		require.Equal(t, "grpc+tls://db.example.com:443", ep.Location[0].Uri)
		require.Equal(t, flight.LocationReuseConnection, ep.Location[len(ep.Location)-1].Uri)
	}
	require.Equal(t, 200, countRows(t, cl, info))

	r := cli(t, "", "serve", "-d", filepath.Join(t.TempDir(), "db2"), "-create", "-advertise", "db.example.com:443")
	require.NotZero(t, r.code)
	require.Contains(t, r.stderr, "advertised location")
}
