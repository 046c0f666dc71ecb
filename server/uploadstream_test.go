package server

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/stablerow/stablerow/engine"
)

// uploadServer is testServer with a statement memory limit and a spill
// directory of the test's; stop shuts it down (once: the test's cleanup
// calls it too) and checks every buffer came back.
func uploadServer(t *testing.T, limit int64, opt Options) (s *Server, cl *flightsql.Client, spill string, stop func()) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	spill = t.TempDir()
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 1024, MemoryLimit: limit, SpillDir: spill})
	opt.Mem = mem
	s, err := New(db, opt)
	require.NoError(t, err)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- s.Serve(lis) }()
	cl, err = flightsql.NewClient(lis.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cl.Close()
			s.Shutdown()
			require.NoError(t, <-done)
			mem.AssertSize(t, 0)
		})
	}
	t.Cleanup(stop)
	return s, cl, spill, stop
}

// idReader is n batches of per ids, i for the i-th id overall; past them
// it blocks until ctx ends if hold, and reports when it got there.
type idReader struct {
	ctx    context.Context
	n, per int
	hold   bool
	there  chan struct{}
	sent   int
	cur    arrow.RecordBatch
}

var idSchema = arrow.NewSchema([]arrow.Field{{Name: "ids", Type: arrow.PrimitiveTypes.Int64}}, nil)

func (r *idReader) Schema() *arrow.Schema { return idSchema }
func (r *idReader) Next() bool {
	r.Release()
	if r.sent == r.n {
		if r.there != nil {
			close(r.there)
			r.there = nil
		}
		if r.hold {
			<-r.ctx.Done()
		}
		return false
	}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range r.per {
		b.Append(int64(r.sent*r.per + i))
	}
	r.sent++
	col := b.NewArray()
	defer col.Release()
	r.cur = array.NewRecordBatch(idSchema, []arrow.Array{col}, int64(r.per))
	return true
}
func (r *idReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *idReader) Record() arrow.RecordBatch      { return r.cur }
func (r *idReader) Err() error                     { return nil }
func (r *idReader) Retain()                        {}
func (r *idReader) Release() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

func countSum(t *testing.T, s *Server) []any {
	t.Helper()
	res, err := s.db.Exec(context.Background(), "SELECT count(*), sum(k) FROM t", nil)
	require.NoError(t, err)
	defer res.Release()
	b := res.Batches[0]
	return []any{b.Column(0).(*array.Int64).Value(0), b.Column(1).(*array.Int64).Value(0)}
}

// TestUploadPaths: the three paths of a parameter upload (uploads.go),
// every buffer released at the end (the checked allocator). A prepared
// INSERT ... FROM UNNEST($1) run with 6 batches streams them into the
// statement (more than the 4MB statement limit lets an upload hold) and
// inserts every id; cancelled midway it commits nothing. Bound to a
// query, the same upload spills to the spill directory, is read back by
// every run, and goes when the statement is closed. A statement that
// reads $1 twice binds it whole.
func TestUploadPaths(t *testing.T) {
	const per = 1 << 17 // 1MB a batch
	s, cl, spill, _ := uploadServer(t, 4<<20, Options{})
	ctx := context.Background()
	_, err := s.db.Exec(ctx, "CREATE TABLE t (k BIGINT NOT NULL)", nil)
	require.NoError(t, err)
	n := int64(6 * per)
	want := []any{n, n * (n - 1) / 2}

	ins, err := cl.Prepare(ctx, "INSERT INTO t SELECT id FROM UNNEST($1) AS u(id)")
	require.NoError(t, err)
	ins.SetRecordReader(&idReader{ctx: ctx, n: 6, per: per})
	got, err := ins.ExecuteUpdate(ctx)
	require.NoError(t, err)
	require.Equal(t, n, got)
	require.Equal(t, want, countSum(t, s))

	cctx, cancel := context.WithCancel(ctx)
	r := &idReader{ctx: cctx, n: 3, per: per, hold: true, there: make(chan struct{})}
	there := r.there
	ins.SetRecordReader(r)
	done := make(chan error, 1)
	go func() {
		_, err := ins.ExecuteUpdate(cctx)
		done <- err
	}()
	<-there
	cancel()
	require.Error(t, <-done)
	require.Equal(t, want, countSum(t, s), "the cancelled upload committed nothing")
	require.NoError(t, ins.Close(ctx))

	q, err := cl.Prepare(ctx, "SELECT count(*), sum(id) FROM UNNEST($1) AS u(id)")
	require.NoError(t, err)
	q.SetRecordReader(&idReader{ctx: ctx, n: 6, per: per})
	info, err := q.Execute(ctx)
	require.NoError(t, err)
	files, err := os.ReadDir(spill)
	require.NoError(t, err)
	require.Len(t, files, 1, "the upload spilled")
	file, err := os.Stat(filepath.Join(spill, files[0].Name(), "params.arrows"))
	require.NoError(t, err)
	require.Greater(t, file.Size(), 6*per*int64(8), "the spilled ids are in the file")
	require.Equal(t, file.Size(), s.MemoryStatus().UploadSpilled, "the status reports the file's bytes")
	for range 2 {
		rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		require.NoError(t, err)
		require.True(t, rdr.Next())
		b := rdr.RecordBatch()
		require.Equal(t, want, []any{b.Column(0).(*array.Int64).Value(0), b.Column(1).(*array.Int64).Value(0)})
		rdr.Release()
		q.SetParameters(nil) // run again on what is bound: the file, read from its start
		info, err = q.Execute(ctx)
		require.NoError(t, err)
	}
	_, err = readAll(ctx, cl, info)
	require.NoError(t, err)
	require.NoError(t, q.Close(ctx))
	files, err = os.ReadDir(spill)
	require.NoError(t, err)
	require.Empty(t, files, "closing the statement removes the spilled upload")
	require.Zero(t, s.MemoryStatus().UploadSpilled)

	twice, err := cl.Prepare(ctx, "INSERT INTO t SELECT a.id FROM UNNEST($1) AS a(id) JOIN UNNEST($1) AS b(id) ON a.id = b.id")
	require.NoError(t, err)
	twice.SetRecordReader(&idReader{ctx: ctx, n: 2, per: 10})
	got, err = twice.ExecuteUpdate(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(20), got)
	require.NoError(t, twice.Close(ctx))
	require.Equal(t, []any{n + 20, n*(n-1)/2 + 190}, countSum(t, s))
	require.Zero(t, s.uploadBytes.Load())
}

// TestUploadSpillDropped: a spilled upload's file goes when the statement
// is dropped after Options.PreparedTTL unused, and when the server shuts
// down with the statement still open.
func TestUploadSpillDropped(t *testing.T) {
	const per = 1 << 17
	_, cl, spill, stop := uploadServer(t, 4<<20, Options{PreparedTTL: 2 * time.Second})
	ctx := context.Background()
	spilled := func() int {
		files, err := os.ReadDir(spill)
		require.NoError(t, err)
		return len(files)
	}
	bind := func() {
		q, err := cl.Prepare(ctx, "SELECT count(*) FROM UNNEST($1) AS u(id)")
		require.NoError(t, err)
		q.SetRecordReader(&idReader{ctx: ctx, n: 4, per: per})
		info, err := q.Execute(ctx)
		require.NoError(t, err)
		_, err = readAll(ctx, cl, info)
		require.NoError(t, err)
		require.Equal(t, 1, spilled(), "the upload spilled")
	}
	bind()
	// Dropped by the TTL (a bound on a hang, not a timing assertion).
	for deadline := time.Now().Add(time.Minute); spilled() > 0; time.Sleep(20 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the idle statement's spill file is still there")
	}
	bind()
	stop()
	require.Zero(t, spilled(), "shutting down removes the spilled upload")
}
