//go:build stablerow_full

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/server"
)

// serveWithPID is serveProcess that also returns the pid, with GOMEMLIMIT
// cleared so the budget alone sets the server's Go memory limit.
func serveWithPID(t *testing.T, args ...string) servedProcess {
	t.Helper()
	return startServe(t, []string{"GOMEMLIMIT="}, args...)
}

// procStatus reads a field of /proc/PID/status in bytes (VmRSS: resident
// now, VmHWM: the most resident so far).
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+) kB`).FindSubmatch(b)
	require.NotNil(t, m, "no %s in /proc/%d/status", field, pid)
	kb, err := strconv.ParseInt(string(m[1]), 10, 64)
	require.NoError(t, err)
	return kb << 10
}

// memoryStatus asks the server for its accounting (the stablerow.memory
// action).
func memoryStatus(t *testing.T, cl *flightsql.Client) server.MemoryStatus {
	t.Helper()
	st, err := cl.Client.DoAction(context.Background(), &flight.Action{Type: server.MemoryStatusAction})
	require.NoError(t, err)
	r, err := st.Recv()
	require.NoError(t, err)
	var m server.MemoryStatus
	require.NoError(t, json.Unmarshal(r.GetBody(), &m))
	return m
}

// query runs a query and reads its result to the end, returning the rows.
func query(ctx context.Context, cl *flightsql.Client, q string) (int64, error) {
	info, err := cl.Execute(ctx, q)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, e := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, e.Ticket)
		if err != nil {
			return 0, err
		}
		for rdr.Next() {
			n += rdr.RecordBatch().NumRows()
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

const budgetMB = 64

// TestServeMemoryBudget: `stablerow serve -server-memory 64MB` as a
// subprocess, with six clients at once running hash joins, GROUP BYs and
// a sort over 400,000 rows, whose state together is many times the
// budget (without it the server's anonymous memory reached 289MB and its
// RSS 360MB, a run on 2 cores): each statement
// finishes with its full answer or fails with ResourceExhausted; the
// server's accounting never passes the budget by more than the heap's
// growth between two looks, and gives everything back; its anonymous
// memory (sampled) stays within the budget and a half, its peak RSS
// within its idle RSS, the budget, the table file (mapped) and a margin;
// and a prober's `SELECT 1` is answered every time throughout.
func TestServeMemoryBudget(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	const rows = 400000
	mustSQL(t, dir, fmt.Sprintf(`CREATE TABLE t (k BIGINT NOT NULL, v BIGINT NOT NULL, s TEXT);
		INSERT INTO t SELECT g, g %% 1000, 'row-' || ((g * 7919) %% 1000003) FROM generate_series(CAST(1 AS BIGINT), %d) AS g(g)`, rows), "-create")
	tableBytes := dirBytes(t, dir)
	sp := serveWithPID(t, "-d", dir, "-server-memory", fmt.Sprintf("%dMB", budgetMB), "-admission-timeout", "60s", "-spill-dir", t.TempDir())
	cl := flightClient(t, sp.addr)
	ctx := context.Background()
	n, err := query(ctx, cl, "SELECT 1")
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	idle := procStatus(t, sp.pid, "VmRSS")

	heavy := []struct {
		q    string
		rows int64
	}{
		{"SELECT a.k, b.v FROM t AS a JOIN t AS b ON a.k = b.k WHERE a.v < 3", 1200},
		{"SELECT s, count(*), sum(v) FROM t GROUP BY s", -1},
		{"SELECT k, s FROM t ORDER BY s DESC, k", rows},
		{"SELECT k, count(*) FROM t GROUP BY k", rows},
	}
	const clients = 6
	stop := make(chan struct{})
	var probes, probeFails int
	var probeErr error
	var peakAnon int64
	probeDone := make(chan struct{})
	go func() {
		defer close(probeDone)
		pcl, err := flightsql.NewClient(sp.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			probeErr = err
			return
		}
		defer pcl.Close()
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			n, err := query(ctx, pcl, "SELECT 1")
			probes++
			if err != nil || n != 1 {
				probeFails++
				probeErr = errors.Join(probeErr, err)
			}
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", sp.pid)); err == nil {
				if m := regexp.MustCompile(`(?m)^RssAnon:\s+(\d+) kB`).FindSubmatch(b); m != nil {
					kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
					peakAnon = max(peakAnon, kb<<10)
				}
			}
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hcl, err := flightsql.NewClient(sp.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if !assertNoError(t, err) {
				return
			}
			defer hcl.Close()
			h := heavy[c%len(heavy)]
			n, err := query(ctx, hcl, h.q)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				if h.rows >= 0 && n != h.rows {
					t.Errorf("%s: %d rows, want %d", h.q, n, h.rows)
				}
				outcomes["ok"]++
			case status.Code(err) == codes.ResourceExhausted:
				outcomes["exhausted"]++
			default:
				t.Errorf("%s: %v (want an answer or ResourceExhausted)", h.q, err)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-probeDone
	m := memoryStatus(t, cl)
	hwm := procStatus(t, sp.pid, "VmHWM")
	t.Logf("outcomes %v; %d probes; RSS idle %d MB, peak %d MB; anonymous peak %d MB (sampled); status %+v",
		outcomes, probes, idle>>20, hwm>>20, peakAnon>>20, m)
	require.NoError(t, probeErr)
	require.Positive(t, probes)
	require.Zero(t, probeFails)
	require.Equal(t, clients, outcomes["ok"]+outcomes["exhausted"])
	require.Positive(t, outcomes["ok"], "some heavy statement must finish")
	require.Equal(t, int64(budgetMB<<20), m.Budget)
	require.Equal(t, int64(budgetMB<<20), m.GoMemLimit, "Go's memory limit is the budget")
	require.LessOrEqual(t, m.PeakAccounted, m.Budget*5/4, "accounting past the budget")
	require.Zero(t, m.Reserved, "every statement gave its memory back")
	require.GreaterOrEqual(t, m.HeavyAdmitted, int64(clients))
	require.GreaterOrEqual(t, m.LightAdmitted, int64(probes))
	require.LessOrEqual(t, peakAnon, int64(budgetMB<<20)*3/2, "anonymous memory")
	require.LessOrEqual(t, hwm, idle+budgetMB<<20+tableBytes+32<<20, "peak RSS")
}

// dirBytes is the size of the files under dir.
func dirBytes(t *testing.T, dir string) int64 {
	var n int64
	require.NoError(t, filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return err
	}))
	return n
}

// assertNoError is require.NoError for a goroutine other than the test's.
func assertNoError(t *testing.T, err error) bool {
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}

// idBatches is a RecordReader of n batches of per ids, in cols bigint
// columns of the same ids: the i-th id overall is id(i) (nil: its place in
// its batch, 0 to per-1). After the last batch it closes sentAll (if not
// nil), then, if hold is not nil, blocks until hold is closed or ctx ends
// (an upload the client has not finished). The one reader of ids the
// serve tests upload.
type idBatches struct {
	ctx     context.Context
	n, per  int
	cols    int
	id      func(i int64) int64
	sentAll chan struct{}
	hold    chan struct{}
	sent    int
	cur     arrow.RecordBatch
	schema  *arrow.Schema
}

func newIDBatches(ctx context.Context, n, per, cols int, hold chan struct{}) *idBatches {
	fields := make([]arrow.Field, cols)
	for i := range fields {
		fields[i] = arrow.Field{Name: fmt.Sprintf("p%d", i+1), Type: arrow.PrimitiveTypes.Int64}
	}
	return &idBatches{ctx: ctx, n: n, per: per, hold: hold, schema: arrow.NewSchema(fields, nil), cols: cols}
}

// seqIDs is n batches of per ids in one column, id(i) the i-th overall.
func seqIDs(ctx context.Context, n, per int, id func(int64) int64) *idBatches {
	r := newIDBatches(ctx, n, per, 1, nil)
	r.id = id
	return r
}

func (r *idBatches) Schema() *arrow.Schema { return r.schema }
func (r *idBatches) Next() bool {
	r.Release()
	if r.sent == r.n {
		if r.sentAll != nil {
			close(r.sentAll)
			r.sentAll = nil
		}
		if r.hold == nil {
			return false
		}
		select {
		case <-r.hold:
		case <-r.ctx.Done():
		}
		return false
	}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(r.per)
	base := int64(r.sent) * int64(r.per)
	for i := range int64(r.per) {
		if r.id != nil {
			b.UnsafeAppend(r.id(base + i))
		} else {
			b.UnsafeAppend(i)
		}
	}
	r.sent++
	col := b.NewArray()
	defer col.Release()
	cols := make([]arrow.Array, r.cols)
	for i := range cols {
		cols[i] = col
	}
	r.cur = array.NewRecordBatch(r.schema, cols, int64(r.per))
	return true
}
func (r *idBatches) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *idBatches) Record() arrow.RecordBatch      { return r.cur }
func (r *idBatches) Err() error                     { return nil }
func (r *idBatches) Retain()                        {}
func (r *idBatches) Release() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

// waitStatus polls the server's accounting until ok holds (or fails the
// test after a minute: a bound on a hang, not a timing assertion).
func waitStatus(t *testing.T, cl *flightsql.Client, what string, ok func(server.MemoryStatus) bool) server.MemoryStatus {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		m := memoryStatus(t, cl)
		if ok(m) {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: never; status %+v", what, m)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeUploadBudget: parameter uploads to `stablerow serve
// -server-memory 64MB` (a subprocess) are counted as they stream. An
// upload of 128MB of ids in 8MB batches fails with ResourceExhausted and
// the server's RSS does not grow by more than the budget; a small one
// binds and answers, its bytes counted while the statement holds them
// and released when it is closed; an upload the client cancels midway
// gives its memory back at once (the accounting returns to zero); a
// value bound to no parameter is InvalidArgument; -prepared-ttl drops an
// idle statement and its parameters, and -result-ttl a result nobody
// fetched.
func TestServeUploadBudget(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT NOT NULL)", "-create")
	sp := serveWithPID(t, "-d", dir, "-server-memory", fmt.Sprintf("%dMB", budgetMB), "-prepared-ttl", "3s", "-result-ttl", "1s")
	cl := flightClient(t, sp.addr)
	ctx := context.Background()
	const q = "SELECT count(*) FROM UNNEST($1) AS u(id)"
	idle := procStatus(t, sp.pid, "VmRSS")

	// Over the budget: 16 batches of 1M ids.
	big, err := cl.Prepare(ctx, q)
	require.NoError(t, err)
	big.SetRecordReader(newIDBatches(ctx, 16, 1<<20, 1, nil))
	_, err = big.Execute(ctx)
	require.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
	require.NoError(t, big.Close(ctx))
	hwm := procStatus(t, sp.pid, "VmHWM")
	require.LessOrEqual(t, hwm, idle+budgetMB<<20+16<<20, "peak RSS: idle %d MB, peak %d MB", idle>>20, hwm>>20)
	waitStatus(t, cl, "the refused upload's memory back", func(m server.MemoryStatus) bool { return m.Uploads == 0 })

	// A small one binds, answers, and is counted until closed.
	small, err := cl.Prepare(ctx, q)
	require.NoError(t, err)
	small.SetRecordReader(newIDBatches(ctx, 2, 50000, 1, nil))
	info, err := small.Execute(ctx)
	require.NoError(t, err)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	require.True(t, rdr.Next())
	require.Equal(t, "[100000]", rdr.RecordBatch().Column(0).String())
	rdr.Release()
	m := memoryStatus(t, cl)
	require.GreaterOrEqual(t, m.Uploads, int64(100000*8), "the bound ids are counted")
	require.Equal(t, 1, m.Prepared)
	require.NoError(t, small.Close(ctx))
	m = memoryStatus(t, cl)
	require.Zero(t, m.Uploads, "closing the statement releases its parameters")
	// The statement's grant goes back when the server's DoGet handler
	// returns, which may be just after the client has read the last
	// batch: wait for it rather than sample once (CI saw 4MB still held).
	waitStatus(t, cl, "the answered statement's grant back", func(m server.MemoryStatus) bool { return m.Reserved == 0 })

	// Cancelled midway: three 4MB batches sent, then the client gives up.
	cctx, cancel := context.WithCancel(ctx)
	hold := make(chan struct{})
	defer close(hold)
	mid, err := cl.Prepare(ctx, q)
	require.NoError(t, err)
	mid.SetRecordReader(newIDBatches(cctx, 3, 1<<19, 1, hold))
	done := make(chan error, 1)
	go func() {
		_, err := mid.Execute(cctx)
		done <- err
	}()
	waitStatus(t, cl, "the upload under way counted", func(m server.MemoryStatus) bool { return m.Uploads >= 3*4<<20 })
	cancel()
	require.Error(t, <-done)
	waitStatus(t, cl, "the cancelled upload's memory back", func(m server.MemoryStatus) bool { return m.Uploads == 0 && m.Reserved == 0 })
	require.NoError(t, mid.Close(ctx))

	// A value bound to no parameter.
	extra, err := cl.Prepare(ctx, q)
	require.NoError(t, err)
	extra.SetRecordReader(newIDBatches(ctx, 1, 10, 2, nil))
	_, err = extra.Execute(ctx)
	require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	require.Contains(t, status.Convert(err).Message(), "bound to no parameter")
	require.NoError(t, extra.Close(ctx))

	// -prepared-ttl: a statement left open is dropped with its parameters.
	left, err := cl.Prepare(ctx, q)
	require.NoError(t, err)
	left.SetRecordReader(newIDBatches(ctx, 1, 1000, 1, nil))
	info, err = left.Execute(ctx)
	require.NoError(t, err)
	// (Its parameters are counted, as the small statement's were; without
	// the TTL they would stay so, and the wait below would fail.)
	// -result-ttl: its result, never fetched, is gone after a second.
	time.Sleep(1500 * time.Millisecond)
	r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err == nil {
		r.Next()
		err = r.Err()
		r.Release()
	}
	require.Equal(t, codes.NotFound, status.Code(err), "%v", err)
	waitStatus(t, cl, "the idle statement dropped", func(m server.MemoryStatus) bool { return m.Prepared == 0 && m.Uploads == 0 })
	_, err = left.Execute(ctx)
	require.Equal(t, codes.NotFound, status.Code(err), "%v", err)
}

// TestServeMemoryFlags: serve's memory flags are listed by -help, and a
// size or percentage that cannot be read, a negative wait and a TTL of
// zero are usage errors (exit status 2) naming the flag.
func TestServeMemoryFlags(t *testing.T) {
	r := cli(t, "", "serve", "-help")
	require.Equal(t, 0, r.code, r.stderr)
	for _, f := range []string{"-server-memory", "-admission-timeout", "-heavy-statements", "-prepared-ttl"} {
		require.Contains(t, r.stdout, f)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-server-memory", "lots"}, "-server-memory"},
		{[]string{"-server-memory", "150%"}, "-server-memory"},
		{[]string{"-admission-timeout", "-1s"}, "-admission-timeout"},
		{[]string{"-prepared-ttl", "0s"}, "-prepared-ttl"},
		{[]string{"-heavy-statements", "-2"}, "-heavy-statements"},
	} {
		r := cli(t, "", append([]string{"serve", "-d", dir}, c.args...)...)
		require.Equal(t, 2, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, c.msg)
	}
}
