//go:build stablerow_full

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/server"
)

// oneRow reads the one row of bigints of a started result.
func oneRow(t *testing.T, ctx context.Context, cl *flightsql.Client, info *flight.FlightInfo) []int64 {
	t.Helper()
	require.Len(t, info.Endpoint, 1)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer rdr.Release()
	var row []int64
	for rdr.Next() {
		b := rdr.RecordBatch()
		for i := 0; i < int(b.NumRows()); i++ {
			require.Nil(t, row, "more than one row")
			row = make([]int64, b.NumCols())
			for j := range row {
				row[j] = b.Column(j).(*array.Int64).Value(i)
			}
		}
	}
	require.NoError(t, rdr.Err())
	require.NotNil(t, row, "no row")
	return row
}

// sqlRow runs a query of one row of bigints.
func sqlRow(t *testing.T, ctx context.Context, cl *flightsql.Client, q string) []int64 {
	t.Helper()
	info, err := cl.Execute(ctx, q)
	require.NoError(t, err)
	return oneRow(t, ctx, cl, info)
}

// TestServeUploadStream: a prepared INSERT INTO t SELECT ... FROM
// UNNEST($1), executed as an update (DoPut) against `stablerow serve
// -server-memory 64MB` (a subprocess), with 30M ids (240MB) in 1M-id
// batches: the upload streams into the running statement, so it
// succeeds (held whole, it was refused with ResourceExhausted), inserts
// exactly those ids (count and sum), and the server's peak RSS grows by
// far less than the upload. The same statement cancelled midway commits
// nothing and gives its memory back.
func TestServeUploadStream(t *testing.T) {
	batches := 30
	if testing.Short() {
		batches = 10 // 80MB, still past the budget
	}
	const per = 1 << 20
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT NOT NULL)", "-create")
	sp := serveWithPID(t, "-d", dir, "-server-memory", fmt.Sprintf("%dMB", budgetMB))
	cl := flightClient(t, sp.addr)
	ctx := context.Background()
	const ins = "INSERT INTO t SELECT id FROM UNNEST($1) AS u(id)"
	idle := procStatus(t, sp.pid, "VmHWM")

	ps, err := cl.Prepare(ctx, ins)
	require.NoError(t, err)
	ps.SetRecordReader(seqIDs(ctx, batches, per, func(i int64) int64 { return i }))
	n, err := ps.ExecuteUpdate(ctx)
	require.NoError(t, err)
	require.NoError(t, ps.Close(ctx))
	total := int64(batches) * per
	require.Equal(t, total, n)
	upload := total * 8
	hwm := procStatus(t, sp.pid, "VmHWM")
	t.Logf("upload %d MB; VmHWM idle %d MB, after %d MB", upload>>20, idle>>20, hwm>>20)
	// The server's Go memory limit follows the budget: the peak is the
	// budget's, not the upload's.
	require.Less(t, hwm-idle, int64(budgetMB+16)<<20, "peak RSS grew by %d MB for a %d MB upload", (hwm-idle)>>20, upload>>20)
	if !testing.Short() {
		require.Less(t, hwm-idle, upload/3, "peak RSS grew by %d MB for a %d MB upload", (hwm-idle)>>20, upload>>20)
	}
	require.Equal(t, []int64{total, total * (total - 1) / 2}, sqlRow(t, ctx, cl, "SELECT count(*), sum(k) FROM t"))
	waitStatus(t, cl, "the statement's memory back", func(m server.MemoryStatus) bool { return m.Uploads == 0 && m.Reserved == 0 })

	// Cancelled midway: five batches sent, then the client gives up.
	cctx, cancel := context.WithCancel(ctx)
	mid, err := cl.Prepare(ctx, ins)
	require.NoError(t, err)
	src := seqIDs(cctx, 5, per, func(i int64) int64 { return -i })
	src.sentAll, src.hold = make(chan struct{}), make(chan struct{}) // never closed: held until cctx ends
	sentAll := src.sentAll
	mid.SetRecordReader(src)
	done := make(chan error, 1)
	go func() {
		_, err := mid.ExecuteUpdate(cctx)
		done <- err
	}()
	<-sentAll
	waitStatus(t, cl, "the upload under way counted", func(m server.MemoryStatus) bool { return m.Uploads >= per*8 })
	cancel()
	require.Error(t, <-done)
	waitStatus(t, cl, "the cancelled upload's memory back", func(m server.MemoryStatus) bool { return m.Uploads == 0 && m.Reserved == 0 })
	require.NoError(t, mid.Close(ctx))
	require.Equal(t, []int64{total, total * (total - 1) / 2}, sqlRow(t, ctx, cl, "SELECT count(*), sum(k) FROM t"),
		"the cancelled statement committed nothing")
}

// TestServeUploadSpill: a prepared take (UNNEST($1) WITH ORDINALITY
// joined to t on _rowid) bound (DoPut, then GetFlightInfo) with 16M ids
// (128MB) in 256K-id batches under `-memory-limit 32MB -server-memory
// 64MB` (a subprocess): past what the upload may hold (a quarter of the
// statement limit, at most half its share of the budget) the upload goes to
// a file under -spill-dir and the take reads it back batch by batch, so
// it answers (held whole, it was refused with ResourceExhausted) with
// the count and sum of k computed here from the ids, twice; the server's
// peak RSS grows by the budget at most, not by the upload; the file goes when the
// statement is rebound, and when it is closed.
func TestServeUploadSpill(t *testing.T) {
	batches := 64
	if testing.Short() {
		batches = 24 // 48MB, still more than the upload may hold
	}
	// Batches of 2MB: the budget also counts the live heap no statement
	// reserved, and 8MB messages leave garbage that makes the first one
	// race the collector under a 64MB budget.
	const per, rows = 1 << 18, 100000
	dir := filepath.Join(t.TempDir(), "db")
	spill := t.TempDir()
	mustSQL(t, dir, fmt.Sprintf("CREATE TABLE t (k BIGINT NOT NULL); INSERT INTO t SELECT g * 3 FROM generate_series(0, %d) AS g(g)", rows-1), "-create")
	sp := serveWithPID(t, "-d", dir, "-server-memory", fmt.Sprintf("%dMB", budgetMB), "-memory-limit", "32MB", "-spill-dir", spill)
	cl := flightClient(t, sp.addr)
	ctx := context.Background()
	idle := procStatus(t, sp.pid, "VmHWM")

	ps, err := cl.Prepare(ctx, `SELECT count(*), sum(t.k) FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) JOIN t ON t._rowid = v.rowid`)
	require.NoError(t, err)
	id := func(i int64) int64 { return (i * 7919) % (rows * 3 / 2) } // a third name no row
	ps.SetRecordReader(seqIDs(ctx, batches, per, id))
	info, err := ps.Execute(ctx)
	require.NoError(t, err)
	files := spillFiles(t, spill)
	require.Len(t, files, 1, "the upload spilled")
	upload := int64(batches) * per * 8
	require.Greater(t, dirBytes(t, spill), upload/2)
	require.Equal(t, dirBytes(t, spill), memoryStatus(t, cl).UploadSpilled, "the status reports the spilled bytes")
	var count, sum int64
	for i := range int64(batches) * per {
		if x := id(i); x < rows {
			count++
			sum += 3 * x
		}
	}
	require.Equal(t, []int64{count, sum}, oneRow(t, ctx, cl, info))
	// Run again without binding: the file is read from the start each time.
	ps.SetParameters(nil)
	info, err = ps.Execute(ctx)
	require.NoError(t, err)
	require.Equal(t, []int64{count, sum}, oneRow(t, ctx, cl, info))
	hwm := procStatus(t, sp.pid, "VmHWM")
	t.Logf("upload %d MB spilled; VmHWM idle %d MB, after %d MB", upload>>20, idle>>20, hwm>>20)
	require.Less(t, hwm-idle, int64(budgetMB+16)<<20, "peak RSS grew by %d MB for a %d MB upload", (hwm-idle)>>20, upload>>20)

	// Rebound with a small upload (held, not spilled): the file goes.
	ps.SetRecordReader(seqIDs(ctx, 1, 10, func(i int64) int64 { return i }))
	info, err = ps.Execute(ctx)
	require.NoError(t, err)
	require.Equal(t, []int64{10, 3 * 45}, oneRow(t, ctx, cl, info))
	require.Empty(t, spillFiles(t, spill), "rebinding removes the spilled upload")

	// Spilled again, then closed: the file goes.
	ps.SetRecordReader(seqIDs(ctx, batches, per, id))
	info, err = ps.Execute(ctx)
	require.NoError(t, err)
	require.Len(t, spillFiles(t, spill), 1)
	require.Equal(t, []int64{count, sum}, oneRow(t, ctx, cl, info))
	require.NoError(t, ps.Close(ctx))
	require.Empty(t, spillFiles(t, spill), "closing the statement removes the spilled upload")
	waitStatus(t, cl, "every upload's memory back", func(m server.MemoryStatus) bool {
		return m.Uploads == 0 && m.Reserved == 0 && m.UploadSpilled == 0
	})
}

// spillFiles lists the upload spill directories under dir.
func spillFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		if strings.HasPrefix(e.Name(), "stablerow-upload-") {
			out = append(out, e.Name())
		}
	}
	return out
}
