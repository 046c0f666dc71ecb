package server

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// fakeClock is a clock tests move by hand (from the test's goroutine
// while a server's read it).
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Unix(1_700_000_000, 0)} }
func testLimiter(base, max time.Duration) *authLimiter {
	return newAuthLimiter(&Auth{FailDelay: base, FailMaxDelay: max}, nil, discard())
}

// TestAuthLimiterDoubles: each failure doubles the wait up to the cap;
// an attempt during the wait is refused with what is left of it; after
// the wait one attempt is admitted; a success clears the count.
func TestAuthLimiterDoubles(t *testing.T) {
	clk := newFakeClock()
	l := testLimiter(100*time.Millisecond, time.Second)
	l.now = clk.now
	ms := time.Millisecond
	for i, want := range []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second} {
		require.Zero(t, l.admit("10.0.0.1", "alice"), "attempt %d after the wait", i+1)
		wait, failures, _ := l.failed("10.0.0.1", "alice")
		require.Equal(t, want, wait, "failure %d", i+1)
		require.Equal(t, i+1, failures)
		clk.add(wait / 2)
		require.Equal(t, wait-wait/2, l.admit("10.0.0.1", "alice"), "attempt during the wait")
		clk.add(wait - wait/2)
	}
	require.Zero(t, l.admit("10.0.0.1", "alice"))
	l.succeeded("10.0.0.1", "alice")
	require.Zero(t, l.admit("10.0.0.1", "alice"))
	wait, failures, _ := l.failed("10.0.0.1", "alice")
	require.Equal(t, 100*ms, wait, "a success starts the count again")
	require.Equal(t, 1, failures)
}

// TestAuthLimiterPerAddressAndUser: failures for one user from one
// address hold back that user from any address and that address for any
// user, not others; refused attempts are counted for the log.
func TestAuthLimiterPerAddressAndUser(t *testing.T) {
	clk := newFakeClock()
	l := testLimiter(time.Second, time.Minute)
	l.now = clk.now
	l.failed("10.0.0.1", "alice")
	require.Positive(t, l.admit("10.0.0.2", "alice"), "same user, other address")
	require.Positive(t, l.admit("10.0.0.1", "bob"), "same address, other user")
	require.Zero(t, l.admit("10.0.0.2", "bob"))
	require.Zero(t, l.admit("10.0.0.3", ""), "no user name: the address alone")
	clk.add(time.Second)
	_, failures, refused := l.failed("10.0.0.1", "alice")
	require.Equal(t, 2, failures)
	require.Equal(t, 1, refused, "one attempt refused for each of alice and 10.0.0.1")
}

// TestAuthLimiterReservesAttempt: once an address has failed, an admitted
// attempt takes the next delay at once, so a second attempt made while
// the first is checked is refused rather than checked in parallel.
func TestAuthLimiterReservesAttempt(t *testing.T) {
	clk := newFakeClock()
	l := testLimiter(time.Second, time.Minute)
	l.now = clk.now
	l.failed("10.0.0.1", "alice")
	clk.add(time.Second)
	require.Zero(t, l.admit("10.0.0.1", "alice"))
	require.Positive(t, l.admit("10.0.0.1", "alice"))
}

// TestAuthLimiterBounded: rotating through many addresses and user names
// never grows the tables past their size; a full table drops the entry
// whose last failure is oldest, and entries are forgotten failForget
// after their wait.
func TestAuthLimiterBounded(t *testing.T) {
	clk := newFakeClock()
	l := testLimiter(time.Second, time.Minute)
	l.now = clk.now
	l.addrs.init(8)
	l.users.init(8)
	for i := range 1000 {
		l.failed(fmt.Sprintf("10.0.%d.%d", i/256, i%256), fmt.Sprintf("user%d", i))
		require.LessOrEqual(t, l.addrs.len(), 8)
		require.LessOrEqual(t, l.users.len(), 8)
	}
	require.Positive(t, l.admit("10.0.3.231", "user999"), "the most recent is kept")
	require.Zero(t, l.admit("10.0.0.0", "user0"), "the oldest was dropped")
	clk.add(time.Second + failForget + time.Second)
	require.Zero(t, l.admit("10.0.3.231", "user999"), "forgotten")
	require.Equal(t, 7, l.addrs.len(), "the forgotten entry is gone; stale ones go when touched or when the table is full")
	require.Equal(t, userKey(strings.Repeat("x", 10000)), userKey(strings.Repeat("x", 10000)))
	require.LessOrEqual(t, len(userKey(strings.Repeat("x", 10000))), maxUserKey)
}

// TestAuthLimiterConcurrent: admit, failed and succeeded from many
// goroutines (run with -race) keep the tables consistent and bounded.
func TestAuthLimiterConcurrent(t *testing.T) {
	l := testLimiter(time.Microsecond, time.Millisecond)
	l.addrs.init(16)
	l.users.init(16)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				addr, user := fmt.Sprintf("a%d", (g*i)%40), fmt.Sprintf("u%d", i%40)
				if l.admit(addr, user) == 0 {
					if i%7 == 0 {
						l.succeeded(addr, user)
					} else {
						l.failed(addr, user)
					}
				}
			}
		})
	}
	wg.Wait()
	for _, tab := range []*failTable{&l.addrs, &l.users} {
		require.LessOrEqual(t, tab.len(), 16)
		require.Equal(t, tab.len(), tab.order.Len())
	}
}

// TestValidatorComparesDigests: passwords and static tokens of any length
// are refused but the right one, and a token is good only for its server.
func TestValidatorComparesDigests(t *testing.T) {
	v := newValidator(Auth{Users: map[string]string{"alice": "s3cret"}, Tokens: []string{"static-token"}})
	for _, c := range []struct{ user, pw string }{
		{"alice", ""}, {"alice", "s3cre"}, {"alice", "s3cret!"}, {"alice", "S3cret"},
		{"bob", "s3cret"}, {"", ""}, {"alice\x00", "s3cret"},
	} {
		_, err := v.Validate(c.user, c.pw)
		require.Equal(t, codes.Unauthenticated, status.Code(err), "%q/%q", c.user, c.pw)
	}
	tok, err := v.Validate("alice", "s3cret")
	require.NoError(t, err)
	id, err := v.IsValid(tok)
	require.NoError(t, err)
	require.Equal(t, "alice", id)
	id, err = v.IsValid("static-token")
	require.NoError(t, err)
	require.Equal(t, "token", id)
	for _, bad := range []string{"", "static-toke", "static-token ", tok[:len(tok)-1]} {
		_, err = v.IsValid(bad)
		require.Equal(t, codes.Unauthenticated, status.Code(err), "%q", bad)
	}
	_, err = newValidator(Auth{Users: map[string]string{"alice": "s3cret"}}).IsValid(tok)
	require.Equal(t, codes.Unauthenticated, status.Code(err), "another server's token")
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// retryAfter is RetryDelay, failing the test if err carries no delay.
func retryAfter(t *testing.T, err error) time.Duration {
	t.Helper()
	d := RetryDelay(err)
	if d == 0 {
		t.Fatalf("no RetryInfo in %v", err)
	}
	return d
}

// TestHandshakeLimited: through a Flight SQL client, a wrong password is
// Unauthenticated with a RetryInfo of the delay; an attempt within it,
// even with the right password, is ResourceExhausted with what is left;
// the failure is logged with the address and user and never the password.
// (cmd/stablerow's TestServeAuthLimit waits the delay out.)
func TestHandshakeLimited(t *testing.T) {
	var log syncBuffer
	_, _, _, addr := testServerAt(t, Options{Logger: slog.New(slog.NewTextHandler(&log, nil)),
		Auth: &Auth{Users: map[string]string{"alice": "s3cret"}, FailDelay: time.Minute, FailMaxDelay: time.Hour}})
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cl.Close()
	ctx := context.Background()
	_, err = cl.Client.AuthenticateBasicToken(ctx, "alice", "wrong-guess")
	require.Equal(t, codes.Unauthenticated, status.Code(err), "%v", err)
	require.Equal(t, time.Minute, retryAfter(t, err))
	_, err = cl.Client.AuthenticateBasicToken(ctx, "alice", "s3cret")
	require.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
	wait := retryAfter(t, err)
	require.True(t, wait > 0 && wait <= time.Minute, "%v", wait)
	require.Contains(t, log.String(), `msg="authentication failed" addr=127.0.0.1 user=alice failures=1`)
	require.NotContains(t, log.String(), "wrong-guess")
}

// TestAuthLimiterRelease: a call with a valid token gives back the attempt
// it reserved, so the next call from its address is admitted; a failure
// in between keeps its own delay.
func TestAuthLimiterRelease(t *testing.T) {
	clk := newFakeClock()
	l := testLimiter(time.Second, time.Minute)
	l.now = clk.now
	l.failed("10.0.0.1", "")
	clk.add(time.Second)
	wait, r := l.reserve("10.0.0.1", "")
	require.Zero(t, wait)
	require.Positive(t, l.admit("10.0.0.1", ""), "reserved: a second attempt meanwhile is refused")
	l.release("10.0.0.1", r)
	wait, r = l.reserve("10.0.0.1", "")
	require.Zero(t, wait, "given back")
	l.failed("10.0.0.1", "")
	l.release("10.0.0.1", r)
	require.Equal(t, 2*time.Second, l.admit("10.0.0.1", ""), "a failure's delay is not given back")
}

// TestBearerLimited: through a Flight SQL client, a call with a wrong
// bearer token is Unauthenticated with a RetryInfo of the delay; within
// it every call from the address with a token, the right one too, unary
// (GetFlightInfo) or streaming (DoGet), is ResourceExhausted; the failure
// is logged with the address and never the token. A call without
// credentials is refused but counts nothing.
func TestBearerLimited(t *testing.T) {
	var log syncBuffer
	_, cl, _, _ := testServerAt(t, Options{Logger: slog.New(slog.NewTextHandler(&log, nil)),
		Auth: &Auth{Tokens: []string{"tok-right"}, FailDelay: time.Minute, FailMaxDelay: time.Hour}})
	ctx := context.Background()
	with := func(tok string) context.Context {
		return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tok)
	}
	_, err := cl.Execute(ctx, "SELECT 1")
	require.Equal(t, codes.Unauthenticated, status.Code(err), "%v", err)
	_, err = cl.Execute(with("tok-right"), "SELECT 1")
	require.NoError(t, err, "no credentials counted nothing")
	_, err = cl.Execute(with("tok-wrong-guess"), "SELECT 1")
	require.Equal(t, codes.Unauthenticated, status.Code(err), "%v", err)
	require.Equal(t, time.Minute, retryAfter(t, err))
	_, err = cl.Execute(with("tok-right"), "SELECT 1")
	require.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
	wait := retryAfter(t, err)
	require.True(t, wait > 0 && wait <= time.Minute, "%v", wait)
	_, err = cl.DoGet(with("tok-right"), &flight.Ticket{Ticket: []byte("x")})
	require.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
	require.Contains(t, log.String(), `msg="authentication failed" addr=127.0.0.1 credential="bearer token" failures=1`)
	require.NotContains(t, log.String(), "tok-")
}
