//go:build stablerow_full

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/server"
)

// TestServeGuardFlags: serve -help documents the hardening flags, and a
// delay that is not positive is refused.
func TestServeGuardFlags(t *testing.T) {
	r := cli(t, "", "serve", "-help")
	require.Equal(t, 0, r.code, r.stderr)
	for _, f := range []string{"-token-ttl", "-auth-fail-delay", "-auth-fail-max-delay", "-files-allow-hardlinks"} {
		require.Contains(t, r.stdout, f)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-token-ttl", "0s"}, "-token-ttl 0s is not positive"},
		{[]string{"-auth-fail-delay", "-1s"}, "-auth-fail-delay -1s is not positive"},
		{[]string{"-auth-fail-delay", "2s", "-auth-fail-max-delay", "1s"}, "less than -auth-fail-delay"},
	} {
		r := cli(t, "", append([]string{"serve", "-d", dir}, c.args...)...)
		require.Equal(t, 1, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, c.msg)
	}
}

// TestServeAuthLimit: `stablerow serve -user alice` as a subprocess, a
// Flight SQL client guessing passwords in a loop. Each wrong password is
// answered Unauthenticated with the server's delay (RetryInfo), which
// doubles from -auth-fail-delay up to -auth-fail-max-delay; an attempt
// within the delay is ResourceExhausted (and waits it out). Each failure is a log line with
// the client's address and the user, never the password. Once the delay
// has passed, the right password logs in and the token works. (That an
// attempt within the delay is refused even with the right password is
// server's TestHandshakeLimited, with a delay no machine outruns.)
func TestServeAuthLimit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	addr, log := serveLogged(t, []string{"STABLEROW_PASSWORD=s3cret"}, "-d", dir, "-create", "-user", "alice",
		"-auth-fail-delay", "50ms", "-auth-fail-max-delay", "400ms")
	cl := flightClient(t, addr)
	ctx := context.Background()
	delays, refused := failedDelays(t, "wrong password", func(_, answered int) error {
		_, err := cl.Client.AuthenticateBasicToken(ctx, "alice", "guess-number-"+string(rune('a'+answered)))
		return err
	})
	ms := time.Millisecond
	require.Equal(t, []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 400 * ms, 400 * ms}, delays, "%d attempts refused within a delay", refused)

	time.Sleep(delays[len(delays)-1])
	authed := login(t, cl, "alice", "s3cret")
	_, err := cl.ExecuteUpdate(authed, "CREATE TABLE t (k BIGINT)")
	require.NoError(t, err)

	re := regexp.MustCompile(`level=WARN msg="authentication failed" addr=127\.0\.0\.1 user=alice failures=(\d)`)
	var out string
	var m [][]string
	// The log is read from the pipe as the server writes it.
	require.Eventually(t, func() bool {
		out = log.String()
		m = re.FindAllStringSubmatch(out, -1)
		return len(m) >= 6
	}, 30*time.Second, 10*time.Millisecond, "6 failures logged")
	require.Len(t, m, 6, out)
	require.Equal(t, "6", m[5][1])
	require.NotContains(t, out, "guess-number")
	require.NotContains(t, out, "s3cret")
}

// login logs in, waiting out the delays of earlier failures from this
// address (a refusal says how long is left).
func login(t *testing.T, cl *flightsql.Client, user, pw string) context.Context {
	t.Helper()
	for {
		c, err := cl.Client.AuthenticateBasicToken(context.Background(), user, pw)
		if status.Code(err) == codes.ResourceExhausted {
			time.Sleep(server.RetryDelay(err))
			continue
		}
		require.NoError(t, err)
		return c
	}
}

// TestServeTokenTTL: with -token-ttl 3s a token issued at login works, is
// Unauthenticated once 3 s have passed (a failure of the address: it
// carries the delay), and logging in again, once the delay has passed,
// gives a new one.
func TestServeTokenTTL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	addr, _ := serveLogged(t, []string{"STABLEROW_PASSWORD=s3cret"}, "-d", dir, "-create", "-user", "alice", "-token-ttl", "3s")
	cl := flightClient(t, addr)
	ctx := context.Background()
	issued := time.Now()
	authed, err := cl.Client.AuthenticateBasicToken(ctx, "alice", "s3cret")
	require.NoError(t, err)
	_, err = cl.ExecuteUpdate(authed, "CREATE TABLE t (k BIGINT)")
	require.NoError(t, err)
	time.Sleep(time.Until(issued.Add(3*time.Second + 200*time.Millisecond)))
	// GetFlightInfo, a unary call, shows the status (a DoPut's client
	// sees the stream end first).
	_, err = cl.Execute(authed, "SELECT k FROM t")
	require.Equal(t, codes.Unauthenticated, status.Code(err), "%v", err)
	require.Equal(t, 250*time.Millisecond, server.RetryDelay(err), "the default -auth-fail-delay")
	authed = login(t, cl, "alice", "s3cret")
	_, err = cl.ExecuteUpdate(authed, "INSERT INTO t VALUES (1)")
	require.NoError(t, err)
}

// TestServeTokenLimit: `stablerow serve -tokens FILE -user alice` as a
// subprocess, a Flight SQL client guessing bearer tokens on unary
// (GetFlightInfo) and streaming (DoGet) calls in turn. Each wrong token is
// answered Unauthenticated with the server's delay (RetryInfo), doubling
// from -auth-fail-delay up to -auth-fail-max-delay, as a wrong password
// is; a call within the delay is ResourceExhausted (and waits it out). An
// issued token past -token-ttl is a failure too. Each failure is a log
// line with the client's address, never the token. Once the delay has
// passed, the right token works. (That a call within the delay is refused
// even with the right token is server's TestBearerLimited, with a delay no
// machine outruns.)
func TestServeTokenLimit(t *testing.T) {
	dir := t.TempDir()
	toks := filepath.Join(dir, "tokens")
	require.NoError(t, os.WriteFile(toks, []byte("right-static-token\n"), 0o600))
	addr, log := serveLogged(t, []string{"STABLEROW_PASSWORD=s3cret"}, "-d", filepath.Join(dir, "db"), "-create",
		"-tokens", toks, "-user", "alice", "-token-ttl", "2s", "-auth-fail-delay", "50ms", "-auth-fail-max-delay", "400ms")
	cl := flightClient(t, addr)
	bearer := func(tok string) context.Context {
		return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+tok)
	}
	// call makes a unary or a streaming call with tok; a valid token's
	// DoGet of a made-up ticket is NotFound or InvalidArgument.
	call := func(i int, tok string) error {
		if i%2 == 0 {
			_, err := cl.Execute(bearer(tok), "SELECT 1")
			return err
		}
		_, err := cl.DoGet(bearer(tok), &flight.Ticket{Ticket: []byte("no-such-ticket")})
		return err
	}
	delays, refused := failedDelays(t, "wrong token", func(i, _ int) error {
		return call(i, fmt.Sprintf("guessed-token-%d", i))
	})
	ms := time.Millisecond
	require.Equal(t, []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 400 * ms, 400 * ms}, delays, "%d calls refused within a delay", refused)

	// The right token, once the delay has passed (a refusal says how long
	// is left), on both kinds of call.
	time.Sleep(delays[len(delays)-1])
	for i := 0; i < 2; {
		err := call(i, "right-static-token")
		if status.Code(err) == codes.ResourceExhausted {
			time.Sleep(server.RetryDelay(err))
			continue
		}
		if i == 0 {
			require.NoError(t, err)
		} else {
			require.Contains(t, []codes.Code{codes.NotFound, codes.InvalidArgument}, status.Code(err), "%v", err)
		}
		i++
	}

	// An issued token past -token-ttl: a failure, with the delay.
	authed := login(t, cl, "alice", "s3cret") // clears the address
	issued := time.Now()
	_, err := cl.Execute(authed, "SELECT 1")
	require.NoError(t, err)
	time.Sleep(time.Until(issued.Add(2*time.Second + 200*time.Millisecond)))
	_, err = cl.Execute(authed, "SELECT 1")
	require.Equal(t, codes.Unauthenticated, status.Code(err), "%v", err)
	require.Equal(t, 50*ms, server.RetryDelay(err), "the first failure since the login")

	re := regexp.MustCompile(`level=WARN msg="authentication failed" addr=127\.0\.0\.1 credential="bearer token" failures=(\d)`)
	var out string
	var m [][]string
	require.Eventually(t, func() bool {
		out = log.String()
		m = re.FindAllStringSubmatch(out, -1)
		return len(m) >= 7
	}, 30*time.Second, 10*time.Millisecond, "7 failures logged")
	require.Len(t, m, 7, out)
	require.Equal(t, "6", m[5][1])
	require.Equal(t, "1", m[6][1])
	require.NotContains(t, out, "guessed-token")
	require.NotContains(t, out, "right-static-token")
}

// TestServeHardLinks: a hard link inside -files to a file outside it.
// COPY FROM through it is refused, COPY TO is refused and the outside file
// keeps its bytes (PermissionDenied, as every other way out), while a
// plain file inside still works; a server started with
// -files-allow-hardlinks reads and writes through the link.
func TestServeHardLinks(t *testing.T) {
	base := t.TempDir()
	files := filepath.Join(base, "files")
	require.NoError(t, os.Mkdir(files, 0o755))
	outside := filepath.Join(base, "outside.csv")
	require.NoError(t, os.WriteFile(outside, []byte("42\n"), 0o644))
	require.NoError(t, os.Link(outside, filepath.Join(files, "ln.csv")))
	require.NoError(t, os.WriteFile(filepath.Join(files, "plain.csv"), []byte("1\n"), 0o644))
	ctx := context.Background()

	addr, _ := serveLogged(t, nil, "-d", filepath.Join(base, "db1"), "-create", "-files", files)
	cl := flightClient(t, addr)
	_, err := cl.ExecuteUpdate(ctx, "CREATE TABLE t (k BIGINT)")
	require.NoError(t, err)
	for _, q := range []string{"COPY t FROM 'ln.csv'", "COPY t TO 'ln.csv'", "COPY (SELECT 7 AS k) TO 'ln.csv'"} {
		_, err = cl.ExecuteUpdate(ctx, q)
		require.Equal(t, codes.PermissionDenied, status.Code(err), "%s: %v", q, err)
		require.Contains(t, err.Error(), "hard link", q)
	}
	b, err := os.ReadFile(outside)
	require.NoError(t, err)
	require.Equal(t, "42\n", string(b), "a refused COPY TO changed the outside file")
	n, err := cl.ExecuteUpdate(ctx, "COPY t FROM 'plain.csv'")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)

	addr, _ = serveLogged(t, nil, "-d", filepath.Join(base, "db2"), "-create", "-files", files, "-files-allow-hardlinks")
	cl = flightClient(t, addr)
	_, err = cl.ExecuteUpdate(ctx, "CREATE TABLE t (k BIGINT)")
	require.NoError(t, err)
	n, err = cl.ExecuteUpdate(ctx, "COPY t FROM 'ln.csv'")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	_, err = cl.ExecuteUpdate(ctx, "COPY (SELECT 7 AS k) TO 'ln.csv'")
	require.NoError(t, err)
	b, err = os.ReadFile(outside)
	require.NoError(t, err)
	require.Equal(t, "7\n", string(b))
}

// failedDelays makes failing calls (attempt(i, answered): the i-th call,
// after answered Unauthenticated answers) until six are answered so, and returns the delay each of those
// announced and how many calls were refused with ResourceExhausted for
// coming within a delay (each then waits what its refusal says).
func failedDelays(t *testing.T, what string, attempt func(i, answered int) error) (delays []time.Duration, refused int) {
	t.Helper()
	for i := 0; len(delays) < 6; i++ {
		err := attempt(i, len(delays))
		switch status.Code(err) {
		case codes.ResourceExhausted: // within the delay
			refused++
			d := server.RetryDelay(err)
			require.Positive(t, d, "%v", err)
			time.Sleep(d)
		case codes.Unauthenticated:
			delays = append(delays, server.RetryDelay(err))
		default:
			t.Fatalf("%s: %v", what, err)
		}
	}
	return delays, refused
}
