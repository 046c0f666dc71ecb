package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table"
)

// TestCodeOf: every failure kind maps to the gRPC code the issue names
// (bad SQL InvalidArgument, unknown table NotFound, conflict Aborted,
// corruption DataLoss), through any wrapping, and an internal error's
// message says nothing of the panic.
func TestCodeOf(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("statement 2 (line 3): %w", err) }
	for _, c := range []struct {
		err  error
		want codes.Code
	}{
		{wrap(errkind.New(errkind.InvalidArgument, "sql: syntax error at line 1, column 8")), codes.InvalidArgument},
		{wrap(engine.ErrUnknownTable), codes.NotFound},
		{wrap(table.ErrCorrupt), codes.DataLoss},
		{wrap(errkind.New(errkind.Conflict, "table: commit conflict")), codes.Aborted},
		{wrap(errkind.New(errkind.OutOfRange, "bigint out of range")), codes.OutOfRange},
		{wrap(engine.ErrUnsupported), codes.Unimplemented},
		{wrap(errkind.New(errkind.Unavailable, "s3store: object store unavailable")), codes.Unavailable},
		// An out-of-range parameter is also a bad parameter: the more
		// precise kind wins.
		{fmt.Errorf("%w: %w", engine.ErrParam, errkind.New(errkind.OutOfRange, "x")), codes.OutOfRange},
		{wrap(context.Canceled), codes.Canceled},
		{wrap(context.DeadlineExceeded), codes.DeadlineExceeded},
		{errors.New("plain"), codes.Unknown},
		{&engine.InternalError{Panic: "secret panic value", Stack: []byte("stack")}, codes.Internal},
	} {
		s := (&Server{log: discard()}).statusOf(c.err)
		st, ok := status.FromError(s)
		require.True(t, ok)
		require.Equal(t, c.want, st.Code(), "%v", c.err)
		require.Equal(t, c.err.Error(), st.Message())
		require.NotContains(t, st.Message(), "secret")
	}
	// A status passes as it is.
	s := status.Error(codes.Unauthenticated, "who are you")
	require.Equal(t, s, (&Server{log: discard()}).statusOf(s))
}

// likeOracle is LIKE by regular expression, the independent reference.
func likeOracle(pattern, s string) bool {
	var re strings.Builder
	re.WriteString(`(?is)\A`)
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '%':
			re.WriteString(".*")
		case r == '_':
			re.WriteString(".")
		case r == '\\' && i+1 < len(rs):
			i++
			re.WriteString(regexp.QuoteMeta(string(rs[i])))
		case r == '\\':
			return false // a dangling escape matches nothing
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re.WriteString(`\z`)
	return regexp.MustCompile(re.String()).MatchString(s)
}

func TestLike(t *testing.T) {
	for _, c := range [][2]string{
		{"t", "t"}, {"T", "t"}, {"%", ""}, {"%", "abc"}, {"a%", "abc"}, {"a%c", "abc"}, {"a_c", "abc"},
		{"a_c", "ac"}, {"%b%", "abc"}, {"%x%", "abc"}, {`a\_c`, "a_c"}, {`a\_c`, "abc"}, {`a\%`, "a%"},
		{"%a%a%a", "aaaa"}, {"", ""}, {"", "a"}, {"a", ""}, {`a\`, "a"}, {"_", "é"},
	} {
		require.Equal(t, likeOracle(c[0], c[1]), like(c[0], c[1]), "%q LIKE %q", c[1], c[0])
	}
}

// FuzzLike: the table name filter agrees with the regular expression
// oracle on any pattern and name.
func FuzzLike(f *testing.F) {
	f.Add("a%c", "abc")
	f.Add(`%\_%`, "a_b")
	f.Add("_%_", "ab")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if len(pattern) > 64 || len(s) > 64 || !utf8Valid(pattern) || !utf8Valid(s) {
			return
		}
		if got, want := like(pattern, s), likeOracle(pattern, s); got != want {
			t.Fatalf("%q LIKE %q: %v, want %v", s, pattern, got, want)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// TestCheckAddr: serving beyond localhost requires authentication.
func TestCheckAddr(t *testing.T) {
	for _, a := range []string{"127.0.0.1:31337", "[::1]:1", "localhost:1", "127.0.0.2:0"} {
		require.NoError(t, CheckAddr(a, nil), a)
	}
	for _, a := range []string{"0.0.0.0:31337", ":31337", "10.1.2.3:1", "[::]:1", "example.com:1"} {
		err := CheckAddr(a, nil)
		require.True(t, errors.Is(err, ErrConfig), "%s: %v", a, err)
		require.True(t, errors.Is(err, errkind.InvalidArgument))
		require.ErrorContains(t, err, "requires authentication")
		require.NoError(t, CheckAddr(a, &Auth{Tokens: []string{"x"}}), a)
	}
	require.Error(t, CheckAddr("nonsense", nil))

	// Serve itself refuses a listener beyond loopback.
	s, err := New(engine.OpenMemory(engine.Options{}), Options{})
	require.NoError(t, err)
	lis, err := net.Listen("tcp", "0.0.0.0:0")
	require.NoError(t, err)
	defer lis.Close()
	require.True(t, errors.Is(s.Serve(lis), ErrConfig))
}

// testServer serves an in-memory database with a checked allocator on a
// loopback port and returns a Flight SQL client of it.
func testServer(t *testing.T, opt Options) (*Server, *flightsql.Client, *memory.CheckedAllocator) {
	t.Helper()
	s, cl, mem, _ := testServerAt(t, opt)
	return s, cl, mem
}

// testServerAt is testServer that also returns the server's address.
func testServerAt(t *testing.T, opt Options) (*Server, *flightsql.Client, *memory.CheckedAllocator, string) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 1024})
	if opt.Mem == nil {
		opt.Mem = mem // the server's own allocations are checked too
	}
	s, err := New(db, opt)
	require.NoError(t, err)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
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
	return s, cl, mem, lis.Addr().String()
}

const big = "SELECT g FROM generate_series(1, 100000000) AS g(g)"

func code(err error) codes.Code { return status.Code(err) }

// TestCancelFlightInfo: a started result nobody reads is closed by
// CancelFlightInfo and its ticket is gone; one being read stops with
// Canceled. Either way the engine holds no memory after (checked at the
// end of the test).
func TestCancelFlightInfo(t *testing.T) {
	ctx := context.Background()
	s, cl, _ := testServer(t, Options{})
	info, err := cl.Execute(ctx, big)
	require.NoError(t, err)
	res, err := cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
	require.NoError(t, err)
	require.Equal(t, flight.CancelStatusCancelled, res.Status)
	_, err = readAll(ctx, cl, info)
	require.Equal(t, codes.NotFound, code(err), "%v", err)
	res, err = cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
	require.NoError(t, err)
	require.Equal(t, flight.CancelStatusNotCancellable, res.Status)

	info, err = cl.Execute(ctx, big)
	require.NoError(t, err)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	require.True(t, rdr.Next())
	res, err = cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
	require.NoError(t, err)
	require.Equal(t, flight.CancelStatusCancelled, res.Status)
	for rdr.Next() {
	}
	require.Equal(t, codes.Canceled, code(rdr.Err()), "%v", rdr.Err())
	rdr.Release()
	require.Eventually(t, func() bool { return s.results.len() == 0 }, 5*time.Second, 10*time.Millisecond)
}

// TestClientGoneAndExpiry: a client that stops reading and goes away ends
// its query (the engine's memory comes back); a result nobody fetches is
// closed after the TTL and its ticket is NotFound.
func TestClientGoneAndExpiry(t *testing.T) {
	s, cl, mem := testServer(t, Options{ResultTTL: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	info, err := cl.Execute(ctx, big)
	require.NoError(t, err)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	require.True(t, rdr.Next())
	// Stop reading long enough for the server's write to block on flow
	// control: the batch being written when the client goes away is the
	// one DoGet drops unreleased (afterCall releases it).
	time.Sleep(300 * time.Millisecond)
	cancel()
	rdr.Release()
	require.Eventually(t, func() bool { return s.results.len() == 0 && mem.CurrentAlloc() == 0 }, 5*time.Second, 10*time.Millisecond)

	info, err = cl.Execute(context.Background(), big)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return s.results.len() == 0 }, 5*time.Second, 10*time.Millisecond)
	_, err = readAll(context.Background(), cl, info)
	require.Equal(t, codes.NotFound, code(err), "%v", err)
	require.Equal(t, int64(0), int64(mem.CurrentAlloc()))
}

// TestStreamsBatchByBatch: a result far larger than a batch arrives as
// many batches while the engine holds a few batches' worth at most.
func TestStreamsBatchByBatch(t *testing.T) {
	ctx := context.Background()
	_, cl, mem := testServer(t, Options{})
	info, err := cl.Execute(ctx, "SELECT g, g + 1 FROM generate_series(1, 2000000) AS g(g)")
	require.NoError(t, err)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer rdr.Release()
	var rows, batches, peak int64
	for rdr.Next() {
		rows += rdr.RecordBatch().NumRows()
		batches++
		peak = max(peak, int64(mem.CurrentAlloc()))
	}
	require.NoError(t, rdr.Err())
	require.Equal(t, int64(2000000), rows)
	require.Greater(t, batches, int64(100))
	// The whole result is 32 MB; a batch of 1024 rows is 16 KB.
	require.Less(t, peak, int64(1<<20), "engine memory while streaming")
}

func readAll(ctx context.Context, cl *flightsql.Client, info *flight.FlightInfo) (int64, error) {
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		return 0, err
	}
	defer rdr.Release()
	var n int64
	for rdr.Next() {
		n += rdr.RecordBatch().NumRows()
	}
	return n, rdr.Err()
}

// TestShutdownStalledReader: a client that stopped reading does not hold
// Shutdown past its grace; its query is cancelled and releases all it
// held (checked by testServer's cleanup).
func TestShutdownStalledReader(t *testing.T) {
	s, cl, _ := testServer(t, Options{ShutdownGrace: 200 * time.Millisecond})
	ctx := context.Background()
	info, err := cl.Execute(ctx, big)
	require.NoError(t, err)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer rdr.Release()
	require.True(t, rdr.Next())
	time.Sleep(200 * time.Millisecond) // the server's writes block on flow control
	t0 := time.Now()
	s.Shutdown()
	require.Less(t, time.Since(t0), 5*time.Second)
}

// TestPreparedTTL: a prepared statement unused for the TTL is dropped
// when its timer fires; one used within the TTL stays. The idle time is
// read on a clock the test moves (a TTL of an hour: no timer fires while
// the test runs), and the test fires the timers' check itself, so how
// slowly the machine runs does not matter. TestPreparedTTLTimer has a real
// timer.
func TestPreparedTTL(t *testing.T) {
	ctx := context.Background()
	clk := newFakeClock()
	s, cl, _ := testServer(t, Options{PreparedTTL: time.Hour, now: clk.now})
	// fire does what each statement's timer does when it fires.
	fire := func() {
		s.mu.Lock()
		m := maps.Clone(s.prepared)
		s.mu.Unlock()
		for h, p := range m {
			s.expirePrepared(h, p)
		}
	}
	idle, err := cl.Prepare(ctx, "SELECT 1")
	require.NoError(t, err)
	used, err := cl.Prepare(ctx, "SELECT 2")
	require.NoError(t, err)
	for range 4 {
		clk.add(20 * time.Minute)
		fire()
		info, err := used.Execute(ctx)
		require.NoError(t, err)
		_, err = readAll(ctx, cl, info)
		require.NoError(t, err)
	}
	_, err = cl.Prepare(ctx, "SELECT 3")
	require.NoError(t, err)
	_, err = idle.Execute(ctx)
	require.Equal(t, codes.NotFound, code(err), "%v", err)
	_, err = used.Execute(ctx)
	require.NoError(t, err)
	s.mu.Lock()
	require.Len(t, s.prepared, 2)
	s.mu.Unlock()
	clk.add(59 * time.Minute)
	fire()
	_, err = used.Execute(ctx)
	require.NoError(t, err, "used 59 minutes ago")
}

// TestPreparedTTLTimer: a statement's own timer drops it once unused for
// the TTL (waited for with a deadline, not a sleep).
func TestPreparedTTLTimer(t *testing.T) {
	ctx := context.Background()
	s, cl, _ := testServer(t, Options{PreparedTTL: 50 * time.Millisecond})
	_, err := cl.Prepare(ctx, "SELECT 1")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.prepared) == 0
	}, time.Minute, 10*time.Millisecond)
}
