//go:build stablerow_full

package main

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// TestServeCommandLine: help, a bad flag, listening beyond localhost
// without authentication, -user without a password, half a TLS pair.
func TestServeCommandLine(t *testing.T) {
	dir := t.TempDir()
	r := cli(t, "", "serve", "-help")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "usage: stablerow serve")
	require.Contains(t, r.stdout, "-max-endpoints")
	require.Contains(t, r.stdout, "-split-min-ids")
	require.Contains(t, r.stdout, "deprecated: -max-endpoints") // -partitions
	r = cli(t, "", "serve", "-zz")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "-zz")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-addr", "0.0.0.0:0"}, "requires authentication"},
		{[]string{"-user", "alice"}, "STABLEROW_PASSWORD"},
		{[]string{"-tls-cert", "x.pem"}, "go together"},
		{[]string{"-tokens", filepath.Join(dir, "missing")}, "-tokens"},
		{[]string{"-max-endpoints", "0"}, "-max-endpoints 0"},
		{[]string{"-split-min-ids", "-5"}, "-split-min-ids -5"},
		// The deprecated spellings: named as given, with a warning.
		{[]string{"-partitions", "0"}, "-partitions is deprecated: use -max-endpoints"},
		{[]string{"-partitions", "0"}, "-partitions 0"},
		{[]string{"-partition-min-ids", "-5"}, "-partition-min-ids -5"},
	} {
		r := cli(t, "", append([]string{"serve", "-d", dir}, c.args...)...)
		require.Equal(t, 1, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, c.msg)
	}
}

// TestServe: `stablerow serve -create` serves a new database; a Flight SQL
// client creates a table, writes and reads; the server stops when asked.
func TestServe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan net.Addr, 1)
	var log bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- serveCmd(ctx, &log, []string{"-d", dir, "-create", "-addr", "127.0.0.1:0"}, func(a net.Addr) { addrs <- a })
	}()
	var addr net.Addr
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatal(err)
	}
	cl, err := flightsql.NewClient(addr.String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cl.Close()
	_, err = cl.ExecuteUpdate(ctx, "CREATE TABLE t (k BIGINT)")
	require.NoError(t, err)
	n, err := cl.ExecuteUpdate(ctx, "INSERT INTO t VALUES (1), (2)")
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	info, err := cl.Execute(ctx, "SELECT count(k) FROM t")
	require.NoError(t, err)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	require.True(t, rdr.Next())
	require.Equal(t, "[2]", strings.TrimSpace(rdr.RecordBatch().Column(0).String()))
	rdr.Release()
	cancel()
	require.NoError(t, <-done)
	require.Contains(t, log.String(), "serving Flight SQL on grpc://127.0.0.1:")
}
