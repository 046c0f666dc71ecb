package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// serveProcess starts the binary as `stablerow serve ARGS -addr
// 127.0.0.1:0` and returns the address it reports; the process is
// stopped (SIGINT, as a user would) when the test ends.
func serveProcess(t *testing.T, args ...string) string {
	t.Helper()
	return startServe(t, nil, args...).addr
}

// startServe starts `stablerow serve ARGS -addr 127.0.0.1:0` with env added
// to the test's environment and returns its address and pid; the process
// is stopped (SIGINT) when the test ends.
func startServe(t *testing.T, env []string, args ...string) servedProcess {
	t.Helper()
	cmd := exec.Command(bin, append(append([]string{"serve"}, args...), "-addr", "127.0.0.1:0")...)
	cmd.Env = append(append(os.Environ(), "STABLEROW_DEBUG="), env...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`serving Flight SQL on grpc://(\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		exited <- cmd.Wait()
	}()
	select {
	case a := <-addr:
		return servedProcess{addr: a, pid: cmd.Process.Pid}
	case err := <-exited:
		t.Fatalf("serve exited before listening: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not report its address")
	}
	return servedProcess{}
}

// TestServeSplitFlags: `stablerow serve -max-endpoints 3
// -split-min-ids 1000`, run as a subprocess: a take of 2000 bound ids
// over a table of four fragments comes back as 3 endpoints, one of 999 ids
// as one; read in full, each has one row per input id and each row is
// the id's (k was inserted equal to the row id).
func TestServeSplitFlags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	addr := serveProcess(t, "-d", dir, "-create", "-max-endpoints", "3", "-split-min-ids", "1000")
	ctx := context.Background()
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cl.Close()
	_, err = cl.ExecuteUpdate(ctx, "CREATE TABLE t (k BIGINT NOT NULL)")
	require.NoError(t, err)
	for lo := 0; lo < 4000; lo += 1000 {
		_, err = cl.ExecuteUpdate(ctx, fmt.Sprintf("INSERT INTO t SELECT g FROM generate_series(%d, %d) AS g(g)", lo, lo+999))
		require.NoError(t, err)
	}
	ps, err := cl.Prepare(ctx, `SELECT v.ord, v.rowid, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) JOIN t ON t._rowid = v.rowid`)
	require.NoError(t, err)
	defer ps.Close(ctx)
	for _, c := range []struct{ ids, endpoints int }{{2000, 3}, {999, 1}} {
		ids := make([]int64, c.ids)
		for i := range ids {
			ids[i] = int64((i * 7919) % 4000) // every fragment, in no order
		}
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.AppendValues(ids, nil)
		col := b.NewArray()
		rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "ids", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, int64(len(ids)))
		ps.SetParameters(rec)
		info, err := ps.Execute(ctx)
		rec.Release()
		col.Release()
		b.Release()
		require.NoError(t, err)
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
