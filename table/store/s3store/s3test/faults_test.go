package s3test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store"
	"github.com/stablerow/stablerow/table/store/s3store"
)

func s3Error(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>injected</Message></Error>`, code)
}

// TestPutIfAbsentConflictAnswers: both answers S3 gives a losing
// conditional write, 412 PreconditionFailed and 409
// ConditionalRequestConflict, are store.ErrExists; any other failure of a
// conditional write is not.
func TestPutIfAbsentConflictAnswers(t *testing.T) {
	var answer atomic.Value
	f := newFake(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if a, _ := answer.Load().([2]any); isPutIfAbsent(r) && a[0] != nil {
				s3Error(w, a[0].(int), a[1].(string))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	st := f.open(t, f.uri("c"), s3store.Options{MaxAttempts: 2})
	ctx := context.Background()
	// A 409 with nothing to read yet: a concurrent write in flight, a lost
	// race.
	answer.Store([2]any{409, "ConditionalRequestConflict"})
	require.ErrorIs(t, st.PutIfAbsent(ctx, "_versions/1", []byte("x")), store.ErrExists)
	// A 412 for an object that is there and not ours: a lost race.
	require.NoError(t, st.Put(ctx, "_versions/0", []byte("theirs")))
	for _, a := range [][2]any{{412, "PreconditionFailed"}, {409, "ConditionalRequestConflict"}} {
		answer.Store(a)
		require.ErrorIs(t, st.PutIfAbsent(ctx, "_versions/0", []byte("x")), store.ErrExists, "%v", a)
	}
	// A 412 for an object that cannot be read: the remains of an unfinished
	// write on the server, which a retry would hit forever. It used to be
	// ErrExists, and the table rebased 64 times onto the same collision
	// (seen with Versity Gateway killed mid-PUT, TestGatewayKilledMidCommit).
	answer.Store([2]any{412, "PreconditionFailed"})
	err := st.PutIfAbsent(ctx, "_versions/1", []byte("x"))
	require.ErrorIs(t, err, s3store.ErrGhost)
	require.ErrorIs(t, err, errkind.Corrupt)
	require.NotErrorIs(t, err, store.ErrExists)
	// A 412 for a write still in flight (Versity Gateway checks the
	// condition before the other writer's object is readable): the object
	// shows up moments later, and it is a lost race, not a ghost. It was
	// ErrGhost, which failed 9 of 20 rounds of TestConcurrentCommits.
	go func() {
		time.Sleep(50 * time.Millisecond)
		_ = st.Put(ctx, "_versions/2", []byte("theirs"))
	}()
	require.ErrorIs(t, st.PutIfAbsent(ctx, "_versions/2", []byte("x")), store.ErrExists)
	answer.Store([2]any{403, "AccessDenied"})
	err = st.PutIfAbsent(ctx, "_versions/1", []byte("x"))
	require.NotErrorIs(t, err, store.ErrExists)
	require.ErrorIs(t, err, s3store.ErrAccessDenied)
	// A plain Put never turns a 409 into ErrExists.
	answer.Store([2]any{nil, nil})
	require.NoError(t, st.PutIfAbsent(ctx, "_versions/1", []byte("x")))
}

// TestRetries: throttling (503 SlowDown, 429) and 5xx answers are retried
// with backoff until MaxAttempts; the operation then succeeds, or fails
// with ErrUnavailable (errkind.Unavailable) after exactly MaxAttempts
// requests. A 4xx is not retried.
func TestRetries(t *testing.T) {
	var failures atomic.Int32 // answers still to fail
	var status atomic.Value   // [2]any{int, code}
	var seen atomic.Int32     // requests that reached the fault injector for f.bin
	f := newFake(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hasPrefixPath(r, "/f.bin") {
				seen.Add(1)
				if failures.Add(-1) >= 0 {
					a := status.Load().([2]any)
					s3Error(w, a[0].(int), a[1].(string))
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	})
	st := f.open(t, f.uri("r"), s3store.Options{MaxAttempts: 4, RetryBaseDelay: time.Millisecond, MaxBackoff: 5 * time.Millisecond})
	ctx := context.Background()
	require.NoError(t, st.Put(ctx, "f.bin", []byte("payload")))
	for _, a := range [][2]any{{503, "SlowDown"}, {429, "TooManyRequests"}, {500, "InternalError"}, {502, "BadGateway"}, {504, "GatewayTimeout"}} {
		t.Run(a[1].(string), func(t *testing.T) {
			status.Store(a)
			failures.Store(3)
			seen.Store(0)
			b, err := st.Get(ctx, "f.bin")
			require.NoError(t, err)
			require.Equal(t, "payload", string(b))
			require.EqualValues(t, 4, seen.Load(), "three failures, then success")

			failures.Store(10)
			seen.Store(0)
			_, err = st.GetRange(ctx, "f.bin", 1, 3)
			require.ErrorIs(t, err, s3store.ErrUnavailable)
			require.ErrorIs(t, err, errkind.Unavailable)
			require.EqualValues(t, 4, seen.Load(), "MaxAttempts requests, then the error")
		})
	}
	status.Store([2]any{403, "AccessDenied"})
	failures.Store(10)
	seen.Store(0)
	_, err := st.Get(ctx, "f.bin")
	require.ErrorIs(t, err, s3store.ErrAccessDenied)
	require.ErrorIs(t, err, errkind.PermissionDenied)
	require.EqualValues(t, 1, seen.Load(), "403 is not retried")
	failures.Store(0)
}

// TestContextCancellation: a cancelled context stops a call before it
// starts and interrupts one that waits on the server, and the error is
// errors.Is context.Canceled through every layer.
func TestContextCancellation(t *testing.T) {
	release := make(chan struct{})
	f := newFake(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hasPrefixPath(r, "/slow.bin") && r.Method == http.MethodGet {
				select {
				case <-release:
				case <-r.Context().Done():
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	})
	defer close(release)
	st := f.open(t, f.uri("x"), s3store.Options{})
	require.NoError(t, st.Put(context.Background(), "slow.bin", []byte("abc")))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, call := range map[string]func(context.Context) error{
		"get":  func(ctx context.Context) error { _, err := st.Get(ctx, "slow.bin"); return err },
		"put":  func(ctx context.Context) error { return st.PutIfAbsent(ctx, "v", nil) },
		"list": func(ctx context.Context) error { _, err := st.List(ctx, ""); return err },
		"ranges": func(ctx context.Context) error {
			_, err := st.ReadRanges(ctx, "slow.bin", []store.Range{{Off: 0, Len: 1}})
			return err
		},
		"size":    func(ctx context.Context) error { _, err := st.Size(ctx, "slow.bin"); return err },
		"getrng":  func(ctx context.Context) error { _, err := st.GetRange(ctx, "slow.bin", 0, 2); return err },
		"delete":  func(ctx context.Context) error { return st.Delete(ctx, "slow.bin") },
		"openrdr": func(ctx context.Context) error { _, err := st.Open(ctx, "slow.bin"); return err },
	} {
		require.ErrorIs(t, call(ctx), context.Canceled, name)
	}

	ctx, cancel = context.WithCancel(context.Background())
	rd, err := st.Open(ctx, "slow.bin")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := rd.ReadAt(make([]byte, 2), 0)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		require.True(t, errors.Is(err, context.Canceled), "%v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("ReadAt did not return after its context was cancelled")
	}
}

// TestPutIfAbsentLostAnswer: the first attempt of a conditional write
// lands but its answer is lost (the proxy answers 500); the SDK retries,
// the server answers 412 because the object is there, and the store must
// report success: the version file is ours. Reporting ErrExists would make
// the table commit the same transaction twice.
func TestPutIfAbsentLostAnswer(t *testing.T) {
	var swallow atomic.Int32
	var attempts atomic.Int32
	f := newFake(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isPutIfAbsent(r) {
				attempts.Add(1)
				if swallow.Add(-1) >= 0 {
					next.ServeHTTP(httptest.NewRecorder(), r) // the write lands...
					s3Error(w, 500, "InternalError")          // ...the answer is lost
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	})
	st := f.open(t, f.uri("lost"), s3store.Options{})
	ctx := context.Background()
	swallow.Store(1)
	require.NoError(t, st.PutIfAbsent(ctx, "_versions/1", []byte("mine")))
	require.EqualValues(t, 2, attempts.Load(), "the SDK retried the 500")

	// Another writer's object: the echo check does not turn a lost race
	// into a win.
	require.NoError(t, st.PutIfAbsent(ctx, "_versions/2", []byte("theirs")))
	swallow.Store(0)
	require.ErrorIs(t, st.PutIfAbsent(ctx, "_versions/2", []byte("mine")), store.ErrExists)
}
