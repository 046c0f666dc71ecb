package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/engine"
)

// spreadTable makes table t of n rows whose ids spread over many
// fragments: appended in several inserts, a _rowid index built half way,
// then rows updated (they move to new fragments) and deleted.
func spreadTable(t *testing.T, db *engine.DB, n int) {
	t.Helper()
	ctx := context.Background()
	_, err := db.Exec(ctx, "CREATE TABLE t (k BIGINT NOT NULL, s TEXT)", nil)
	require.NoError(t, err)
	step := n / 8
	for lo := 0; lo < n; lo += step {
		_, err := db.Exec(ctx, fmt.Sprintf("INSERT INTO t SELECT g, 's' || g FROM generate_series(%d, %d) AS g(g)", lo, min(lo+step, n)-1), nil)
		require.NoError(t, err)
		if lo == 4*step {
			_, err = db.Exec(ctx, "CREATE INDEX rid ON t USING btree (_rowid)", nil)
			require.NoError(t, err)
		}
	}
	for _, q := range []string{
		"UPDATE t SET s = 'u' || k WHERE k % 7 = 0",
		"DELETE FROM t WHERE k % 11 = 0",
		"UPDATE t SET k = k + 1000000 WHERE k % 13 = 0",
	} {
		_, err := db.Exec(ctx, q, nil)
		require.NoError(t, err)
	}
}

// randomIDs draws n ids: most live, some deleted or never existing, some
// negative, with duplicates.
func randomIDs(n, rows int, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, 1))
	ids := make([]int64, n)
	for i := range ids {
		switch x := r.IntN(100); {
		case x < 3:
			ids[i] = -1 - int64(r.IntN(10))
		case x < 6:
			ids[i] = int64(rows + r.IntN(rows))
		case x < 10 && i > 0:
			ids[i] = ids[r.IntN(i)]
		default:
			ids[i] = int64(r.IntN(rows))
		}
	}
	return ids
}

func idBatch(mem memory.Allocator, ids []int64) arrow.RecordBatch {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(ids, nil)
	c := b.NewArray()
	defer c.Release()
	return array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "ids", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{c}, int64(len(ids)))
}

// executeIDs binds ids (one int64 column) to ps and executes it.
func executeIDs(ctx context.Context, ps *flightsql.PreparedStatement, mem memory.Allocator, ids []int64) (*flight.FlightInfo, error) {
	rec := idBatch(mem, ids)
	defer rec.Release()
	ps.SetParameters(rec)
	return ps.Execute(ctx)
}

// rowStrings renders rows as strings, one per row, for comparison.
func rowStrings(b arrow.RecordBatch) []string {
	out := make([]string, b.NumRows())
	for i := range out {
		s := ""
		for _, c := range b.Columns() {
			s += c.ValueStr(i) + "|"
		}
		out[i] = s
	}
	return out
}

// inProcess is the engine's own answer to the statement, ordered by its
// ord column.
func inProcess(t *testing.T, db *engine.DB, q string, ids []int64, ordCol int) (*arrow.Schema, []string) {
	t.Helper()
	rows, err := db.Query(context.Background(), q, engine.PositionalParams([]any{ids}))
	require.NoError(t, err)
	defer rows.Close()
	var out []ordRow
	for rows.Next() {
		b := rows.Batch()
		for j, r := range rowStrings(b) {
			out = append(out, ordRow{b.Column(ordCol).(*array.Int64).Value(j), r})
		}
	}
	require.NoError(t, rows.Err())
	return rows.Schema(), byOrd(out)
}

type ordRow struct {
	ord int64
	s   string
}

func byOrd(rows []ordRow) []string {
	slices.SortStableFunc(rows, func(a, b ordRow) int { return int(a.ord - b.ord) })
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.s
	}
	return out
}

// readEndpoints reads every endpoint of info on its own goroutine and returns
// the rows, sorted by the ord column (column ordCol).
func readEndpoints(t *testing.T, cl *flightsql.Client, info *flight.FlightInfo, ordCol int) ([]string, []int) {
	t.Helper()
	type endpointRows struct {
		rows []string
		ords []int64
		err  error
	}
	eps := make([]endpointRows, len(info.Endpoint))
	var wg sync.WaitGroup
	for i, e := range info.Endpoint {
		wg.Go(func() {
			rdr, err := cl.DoGet(context.Background(), e.Ticket)
			if err != nil {
				eps[i].err = err
				return
			}
			defer rdr.Release()
			for rdr.Next() {
				b := rdr.RecordBatch()
				eps[i].rows = append(eps[i].rows, rowStrings(b)...)
				for j := range int(b.NumRows()) {
					eps[i].ords = append(eps[i].ords, b.Column(ordCol).(*array.Int64).Value(j))
				}
			}
			eps[i].err = rdr.Err()
		})
	}
	wg.Wait()
	var all []ordRow
	var sizes []int
	for _, p := range eps {
		require.NoError(t, p.err)
		sizes = append(sizes, len(p.rows))
		for j := range p.rows {
			all = append(all, ordRow{p.ords[j], p.rows[j]})
		}
	}
	return byOrd(all), sizes
}

// TestSplitTake: a take of 10K ids over a table whose rows spread
// over many fragments comes back as several endpoints; read on
// goroutines, their union ordered by ord is the engine's own answer to
// the statement, row for row, for LEFT and INNER joins, with the SELECT
// list in any order.
func TestSplitTake(t *testing.T) {
	s, cl, mem := testServer(t, Options{MaxEndpoints: 4})
	spreadTable(t, s.db, 40000)
	ids := randomIDs(10000, 40000, 1)
	ctx := context.Background()
	for _, c := range []struct {
		q      string
		ordCol int
	}{
		{`SELECT v.ord, t._rowaddr, t.k, t.s FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
			LEFT JOIN t ON t._rowid = v.rowid`, 0},
		{`SELECT t.s AS name, v.rowid, t._rowid, v.ord AS o FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord)
			JOIN t ON v.rowid = t._rowid`, 3},
		{`SELECT t.k, v.ord FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`, 1},
	} {
		ps, err := cl.Prepare(ctx, c.q)
		require.NoError(t, err)
		info, err := executeIDs(ctx, ps, mem, ids)
		require.NoError(t, err, c.q)
		require.Len(t, info.Endpoint, 4, c.q)
		schema, want := inProcess(t, s.db, c.q, ids, c.ordCol)
		got, sizes := readEndpoints(t, cl, info, c.ordCol)
		require.Equal(t, len(want), len(got), c.q)
		require.Equal(t, want, got, c.q)
		require.Equal(t, int64(len(want)), info.TotalRecords)
		for _, n := range sizes {
			require.Greater(t, n, 0, "every endpoint holds rows: %v", sizes)
		}
		fs, err := flight.DeserializeSchema(info.Schema, mem)
		require.NoError(t, err)
		require.True(t, fs.Equal(schema), "%s vs %s", fs, schema)
		require.NoError(t, ps.Close(ctx))
	}
	require.Eventually(t, func() bool { return s.splits.len() == 0 }, 5*time.Second, 10*time.Millisecond)
}

// TestNotSplit: statements other than the take shape, or with few
// ids, are one endpoint, and MaxEndpoints: 1 turns splitting off.
func TestNotSplit(t *testing.T) {
	for _, c := range []struct {
		opt Options
		q   string
		n   int
	}{
		{Options{}, `SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`, 100},
		{Options{MaxEndpoints: 1}, `SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`, 5000},
		// No ord in the output: a client could not restore the order.
		{Options{}, `SELECT t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`, 5000},
		{Options{}, `SELECT v.ord, t.k + 1 FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`, 5000},
		{Options{}, `SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid WHERE t.k > 5`, 5000},
		{Options{}, `SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord LIMIT 10`, 5000},
		{Options{}, `SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t.k = v.rowid`, 5000},
		{Options{}, `SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord DESC`, 5000},
		// An order asked for is kept, in one endpoint.
		{Options{}, `SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`, 5000},
	} {
		s, cl, mem := testServer(t, c.opt)
		spreadTable(t, s.db, 20000)
		ctx := context.Background()
		ps, err := cl.Prepare(ctx, c.q)
		require.NoError(t, err)
		info, err := executeIDs(ctx, ps, mem, randomIDs(c.n, 20000, 2))
		require.NoError(t, err, c.q)
		require.Len(t, info.Endpoint, 1, c.q)
		_, err = readAll(ctx, cl, info)
		require.NoError(t, err)
		require.NoError(t, ps.Close(ctx))
	}
}

// TestEndpointTickets: a forged, garbled or altered ticket is
// InvalidArgument; an endpoint reads once; Cancel drops the take (its
// other tickets NotFound); an expired ticket is NotFound; the server
// holds nothing after.
func TestEndpointTickets(t *testing.T) {
	s, cl, mem := testServer(t, Options{MaxEndpoints: 3, ResultTTL: time.Second})
	spreadTable(t, s.db, 20000)
	ctx := context.Background()
	q := `SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`
	exec := func() *flight.FlightInfo {
		ps, err := cl.Prepare(ctx, q)
		require.NoError(t, err)
		defer ps.Close(ctx)
		rec := idBatch(mem, randomIDs(6000, 20000, 3))
		defer rec.Release()
		ps.SetParameters(rec)
		info, err := ps.Execute(ctx)
		require.NoError(t, err)
		require.Len(t, info.Endpoint, 3)
		return info
	}
	doGet := func(handle []byte) error {
		tk, err := flightsql.CreateStatementQueryTicket(handle)
		require.NoError(t, err)
		rdr, err := cl.DoGet(ctx, &flight.Ticket{Ticket: tk})
		if err != nil {
			return err
		}
		defer rdr.Release()
		for rdr.Next() {
		}
		return rdr.Err()
	}
	handleOf := func(e *flight.FlightEndpoint) []byte {
		st, err := flightsql.GetStatementQueryTicket(e.Ticket)
		require.NoError(t, err)
		return st.GetStatementHandle()
	}

	info := exec()
	h := handleOf(info.Endpoint[1])
	// Altered: every byte flipped in turn, a truncation, an extension.
	for i := range h {
		b := slices.Clone(h)
		b[i] ^= 0x41
		if !isEndpointTicket(b) {
			continue // no longer an endpoint ticket: a result handle, NotFound
		}
		require.Equal(t, codes.InvalidArgument, code(doGet(b)), "byte %d", i)
	}
	require.Equal(t, codes.InvalidArgument, code(doGet(h[:len(h)-1])))
	require.Equal(t, codes.InvalidArgument, code(doGet(append(slices.Clone(h), 0))))
	require.Equal(t, codes.InvalidArgument, code(doGet([]byte("SRPT garbage"))))
	// Of another server (another key).
	tk, err := parseTicket(h)
	require.NoError(t, err)
	require.Equal(t, codes.InvalidArgument, code(doGet(tk.encode(make([]byte, 32)))))

	require.NoError(t, doGet(h))
	require.Equal(t, codes.NotFound, code(doGet(h)), "an endpoint reads once")
	res, err := cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
	require.NoError(t, err)
	require.Equal(t, flight.CancelStatusCancelled, res.Status)
	require.Equal(t, codes.NotFound, code(doGet(handleOf(info.Endpoint[0]))))
	require.Equal(t, 0, s.splits.len())

	// Expiry: the take is dropped, the ticket says it expired.
	info = exec()
	require.Eventually(t, func() bool { return s.splits.len() == 0 }, 5*time.Second, 10*time.Millisecond)
	require.Equal(t, codes.NotFound, code(doGet(handleOf(info.Endpoint[0]))))
	time.Sleep(50 * time.Millisecond)

	// A read that did not end (client gone, error) leaves the endpoint
	// readable again; one being read is not handed to a second reader.
	info = exec()
	h = handleOf(info.Endpoint[0])
	p, ep, err := s.splits.begin(h)
	require.NoError(t, err)
	require.Equal(t, codes.NotFound, code(doGet(h)), "being read")
	s.splits.end(p, ep, false)
	require.NoError(t, doGet(h))
	res, err = cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
	require.NoError(t, err)
	require.Equal(t, flight.CancelStatusCancelled, res.Status)
}

// TestGroupTasks: groups are whole fragments, ascending, at most n, with
// every task in exactly one.
func TestGroupTasks(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for range 200 {
		var tasks []access.TakeTask
		f := uint32(0)
		for range r.IntN(40) {
			f += uint32(r.IntN(3))
			tasks = append(tasks, access.TakeTask{Fragment: f, Ords: make([]uint64, 1+r.IntN(100))})
		}
		n := 1 + r.IntN(8)
		gs := groupTasks(tasks, n)
		require.LessOrEqual(t, len(gs), n)
		seen := 0
		var last int64 = -1
		for _, g := range gs {
			require.NotEmpty(t, g.frags)
			rows := 0
			for _, k := range g.tasks {
				require.Equal(t, seen, k, "tasks in order, each once")
				seen++
				require.Contains(t, g.frags, tasks[k].Fragment)
				rows += len(tasks[k].Ords)
			}
			require.Equal(t, rows, g.rows)
			for _, fr := range g.frags {
				require.Greater(t, int64(fr), last, "fragments ascending, each in one group")
				last = int64(fr)
			}
		}
		require.Equal(t, len(tasks), seen)
	}
}

// slowSplitTake serves spreadTable(40000) in two endpoints of
// 64-row batches, executes a take of 30K random ids (seed) and returns,
// with the server, its client and allocator, the take's FlightInfo and a
// second client with fixed 64 KB flow-control windows (no BDP growth):
// the server cannot push a whole endpoint into buffers before that
// client goes away or the take is cancelled.
func slowSplitTake(t *testing.T, seed uint64) (*Server, *flightsql.Client, *memory.CheckedAllocator, *flightsql.Client, *flight.FlightInfo) {
	t.Helper()
	s, cl, mem, addr := testServerAt(t, Options{MaxEndpoints: 2, SplitBatchRows: 64})
	spreadTable(t, s.db, 40000)
	ctx := context.Background()
	ps, err := cl.Prepare(ctx, `SELECT v.ord, t.s FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`)
	require.NoError(t, err)
	t.Cleanup(func() { ps.Close(ctx) })
	info, err := executeIDs(ctx, ps, mem, randomIDs(30000, 40000, seed))
	require.NoError(t, err)
	slow, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(1<<16), grpc.WithInitialConnWindowSize(1<<16))
	require.NoError(t, err)
	t.Cleanup(func() { slow.Close() })
	return s, cl, mem, slow, info
}

// TestEndpointClientGone: a client that reads one batch of an endpoint
// and goes away stops its DoGet; everything the server took for it comes
// back (the checked allocator, also at the end of the test), and the
// endpoint can be read again, in full.
func TestEndpointClientGone(t *testing.T) {
	s, cl, mem, slow, info := slowSplitTake(t, 6)
	ctx := context.Background()
	require.Len(t, info.Endpoint, 2)
	held := mem.CurrentAlloc()
	cctx, cancel := context.WithCancel(ctx)
	rdr, err := slow.DoGet(cctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	require.True(t, rdr.Next())
	require.Equal(t, int64(64), rdr.RecordBatch().NumRows(), "batches of SplitBatchRows")
	cancel()
	rdr.Release()
	var n int64
	require.Eventually(t, func() bool {
		n, err = readAll(ctx, cl, &flight.FlightInfo{Endpoint: info.Endpoint[:1]})
		return err == nil
	}, 30*time.Second, 20*time.Millisecond, "the endpoint reads again")
	require.Greater(t, n, int64(64))
	// A minute: a bound on a hang, not a timing assertion (5 s failed
	// under a load of 40 on 2 cores).
	require.Eventually(t, func() bool { return mem.CurrentAlloc() <= held }, time.Minute, 10*time.Millisecond)
	m, err := readAll(ctx, cl, &flight.FlightInfo{Endpoint: info.Endpoint[1:]})
	require.NoError(t, err)
	require.Equal(t, info.TotalRecords, n+m)
	require.Eventually(t, func() bool { return s.splits.len() == 0 }, time.Minute, 10*time.Millisecond)
}

// TestSplitSubstrait: the take as a Substrait plan (binary
// protobuf, prepared, the ids bound) is split as its SQL is, and
// its endpoints' union is the engine's answer.
func TestSplitSubstrait(t *testing.T) {
	s, cl, mem := testServer(t, Options{MaxEndpoints: 3})
	spreadTable(t, s.db, 40000)
	ctx := context.Background()
	q := `SELECT t.k, v.ord, t.s FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`
	js, _, err := s.db.SubstraitOf(ctx, q)
	require.NoError(t, err)
	var p substraitpb.Plan
	require.NoError(t, protojson.Unmarshal(js, &p))
	bin, err := proto.Marshal(&p)
	require.NoError(t, err)
	ps, err := cl.PrepareSubstrait(ctx, flightsql.SubstraitPlan{Plan: bin})
	require.NoError(t, err)
	defer ps.Close(ctx)
	ids := randomIDs(9000, 40000, 8)
	info, err := executeIDs(ctx, ps, mem, ids)
	require.NoError(t, err)
	require.Len(t, info.Endpoint, 3)
	_, want := inProcess(t, s.db, q, ids, 1)
	got, _ := readEndpoints(t, cl, info, 1)
	require.Equal(t, want, got)
}

// TestEndpointCancelMidRead: CancelFlightInfo while an endpoint is being
// read ends that read with Canceled, never a silently short stream.
func TestEndpointCancelMidRead(t *testing.T) {
	_, cl, _, slow, info := slowSplitTake(t, 7)
	ctx := context.Background()
	rdr, err := slow.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer rdr.Release()
	require.True(t, rdr.Next())
	// Let the server fill the 64 KB window and block handing over the
	// next batch: the cancellation must reach a blocked stream too.
	time.Sleep(300 * time.Millisecond)
	res, err := cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
	require.NoError(t, err)
	require.Equal(t, flight.CancelStatusCancelled, res.Status)
	rows := int64(0)
	for rdr.Next() {
		rows += rdr.RecordBatch().NumRows()
	}
	require.Equal(t, codes.Canceled, code(rdr.Err()), "after %d more rows: %v", rows, rdr.Err())
	require.Less(t, rows, info.TotalRecords)
}

// allocated is the bytes the heap handed out while f ran (the program's
// other goroutines too: the test runs none of its own).
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestSplitAllocationBounded: looking at a statement that binds a large id
// list to decide whether to split it allocates no more than planning the
// statement does: a statement of 300 UNION ALLs of takes is not split,
// and deciding so costs about what its lowering costs. (split matched
// the indented JSON of the plan, O(depth²) bytes: 254 MB here, ten times
// the statement's planning; ~2.5 GB at the 1000-level depth limit.)
func TestSplitAllocationBounded(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 1024})
	s, err := New(db, Options{Mem: mem})
	require.NoError(t, err)
	defer s.Shutdown()
	spreadTable(t, db, 1000)
	ctx := context.Background()
	branches := make([]string, 300)
	for i := range branches {
		branches[i] = "SELECT v.ord, t.s FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid"
	}
	q := strings.Join(branches, " UNION ALL ")
	params := []any{randomIDs(2*s.opt.SplitMinIDs, 1000, 9)}
	var schema *arrow.Schema
	planned := allocated(func() {
		rows, err := db.Query(ctx, q, engine.PositionalParams(params))
		require.NoError(t, err)
		schema = rows.Schema()
		require.NoError(t, rows.Close())
	})
	split := allocated(func() {
		_, ok, err := s.split(ctx, nil, q, params, schema)
		require.NoError(t, err)
		require.False(t, ok, "a UNION is not a take")
	})
	t.Logf("%d bytes of SQL: planning allocated %d KB, split %d KB", len(q), planned>>10, split>>10)
	require.LessOrEqual(t, split, planned, "split allocated more than planning the statement")
}

// TestDeprecatedSplitOptions: the split's options by their old names
// (Partitions, PartitionMinIDs, PartitionBatchRows) still set it, and the
// new names win over them.
func TestDeprecatedSplitOptions(t *testing.T) {
	s, err := New(engine.OpenMemory(engine.Options{}), Options{Partitions: 5, PartitionMinIDs: 7, PartitionBatchRows: 9})
	require.NoError(t, err)
	require.Equal(t, []int{5, 7, 9}, []int{s.opt.MaxEndpoints, s.opt.SplitMinIDs, s.opt.SplitBatchRows})
	s, err = New(engine.OpenMemory(engine.Options{}), Options{MaxEndpoints: 2, Partitions: 5, SplitMinIDs: 3, PartitionMinIDs: 7})
	require.NoError(t, err)
	require.Equal(t, []int{2, 3}, []int{s.opt.MaxEndpoints, s.opt.SplitMinIDs})
}
