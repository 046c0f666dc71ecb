package s3store

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stablerow/stablerow/errkind"
)

// awsEnv points the AWS configuration chain at endpoint with static
// credentials and nothing else (no profile, no instance metadata).
func awsEnv(t *testing.T, endpoint string) {
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_S3": endpoint, "AWS_ENDPOINT_URL": "", "AWS_ACCESS_KEY_ID": "x",
		"AWS_SECRET_ACCESS_KEY": "x", "AWS_REGION": "us-east-1", "AWS_CONFIG_FILE": none,
		"AWS_SHARED_CREDENTIALS_FILE": none, "AWS_EC2_METADATA_DISABLED": "true", "AWS_PROFILE": "",
		"AWS_MAX_ATTEMPTS": "", "AWS_CA_BUNDLE": "",
	} {
		t.Setenv(k, v)
	}
}

// countingClient counts the HTTP requests the SDK sends, retries included.
type countingClient struct{ n atomic.Int64 }

func (c *countingClient) Do(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultClient.Do(r)
}

// closedEndpoint returns an http://127.0.0.1:port where nothing listens.
func closedEndpoint(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// TestUnreachableIsUnavailable: an endpoint where nothing listens is an
// Unavailable error naming the endpoint and the operation, after exactly
// MaxAttempts attempts (issue 26 item 8: it was an internal error).
func TestUnreachableIsUnavailable(t *testing.T) {
	ep := closedEndpoint(t)
	awsEnv(t, ep)
	hc := &countingClient{}
	_, err := New(context.Background(), "s3://bucket/db", Options{MaxAttempts: 3, RetryBaseDelay: time.Millisecond, HTTPClient: hc})
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, errkind.Unavailable) || errors.Is(err, errkind.Internal) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if msg := err.Error(); !strings.Contains(msg, ep) || !strings.Contains(msg, "head bucket") {
		t.Fatalf("the message names neither the endpoint %s nor the operation: %v", ep, err)
	}
	if got := hc.n.Load(); got != 3 {
		t.Fatalf("%d attempts, want 3 (MaxAttempts)", got)
	}
}

// TestRetryBudgetFromEnvironment: AWS_MAX_ATTEMPTS sets the budget when
// Options leaves it unset, as in every AWS SDK.
func TestRetryBudgetFromEnvironment(t *testing.T) {
	awsEnv(t, closedEndpoint(t))
	t.Setenv("AWS_MAX_ATTEMPTS", "2")
	hc := &countingClient{}
	_, err := New(context.Background(), "s3://bucket/db", Options{RetryBaseDelay: time.Millisecond, HTTPClient: hc})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if got := hc.n.Load(); got != 2 {
		t.Fatalf("%d attempts, want 2 (AWS_MAX_ATTEMPTS)", got)
	}
}

// TestServerErrorsAfterRetries: a server answering 503 to everything is
// Unavailable once the retries are spent; one refusing the request (403)
// is not, and is not retried.
func TestServerErrorsAfterRetries(t *testing.T) {
	for _, c := range []struct {
		status      int
		code        string
		unavailable bool
		attempts    int64
	}{
		{http.StatusServiceUnavailable, "SlowDown", true, 3},
		{http.StatusInternalServerError, "InternalError", true, 3},
		{http.StatusForbidden, "AccessDenied", false, 1},
	} {
		var n atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(c.status)
			if r.Method != http.MethodHead {
				w.Write([]byte("<Error><Code>" + c.code + "</Code><Message>m</Message></Error>"))
			}
		}))
		awsEnv(t, srv.URL)
		_, err := New(context.Background(), "s3://bucket/db", Options{MaxAttempts: 3, RetryBaseDelay: time.Millisecond})
		srv.Close()
		if err == nil || errors.Is(err, ErrUnavailable) != c.unavailable {
			t.Fatalf("status %d: err = %v, want unavailable=%v", c.status, err, c.unavailable)
		}
		if !c.unavailable && !errors.Is(err, ErrAccessDenied) {
			t.Fatalf("status %d: err = %v, want ErrAccessDenied", c.status, err)
		}
		if !strings.Contains(err.Error(), srv.URL) {
			t.Fatalf("status %d: the message does not name the endpoint %s: %v", c.status, srv.URL, err)
		}
		if got := n.Load(); got != c.attempts {
			t.Fatalf("status %d: %d attempts, want %d", c.status, got, c.attempts)
		}
	}
}
