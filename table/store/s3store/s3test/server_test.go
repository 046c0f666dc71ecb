package s3test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/table/store/s3store"
)

const bucket = "stablerow-test"

// counter is an http.RoundTripper that counts the requests a store sends,
// by kind, so tests can pin how many GETs an operation costs.
type counter struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    map[string]int // "GET range", "GET", "HEAD", "PUT", "DELETE", "LIST"; "bytes"; "max in flight" of GET range
	in   int            // GET ranges in flight now
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	kind := r.Method
	switch {
	case r.Method == http.MethodGet && r.Header.Get("Range") != "":
		kind = "GET range"
	case r.Method == http.MethodGet && r.URL.Query().Has("list-type"):
		kind = "LIST"
	}
	if kind == "GET range" {
		c.mu.Lock()
		c.in++
		c.n["max in flight"] = max(c.n["max in flight"], c.in)
		c.mu.Unlock()
	}
	resp, err := c.next.RoundTrip(r)
	c.mu.Lock()
	if kind == "GET range" {
		c.in--
	}
	c.n[kind]++
	if err == nil && kind == "GET range" && resp.ContentLength > 0 {
		c.n["bytes"] += int(resp.ContentLength)
	}
	c.mu.Unlock()
	return resp, err
}

func (c *counter) reset() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = map[string]int{}
	return n
}

// env points the standard AWS chain at url and nowhere else: no shared
// config files, no instance metadata.
func env(t testing.TB, url string) {
	t.Setenv("AWS_ENDPOINT_URL", url)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	// A path of the test's own that surely does not exist (a fixed one
	// like /nonexistent may, on a shared machine).
	none := filepath.Join(t.TempDir(), "no-such-file")
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_S3_FORCE_PATH_STYLE", "")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CA_BUNDLE", "")
}

// fake is an in-process gofakes3 server with one bucket, optionally behind
// a middleware that can inject faults.
type fake struct {
	bucket  string
	root    string // a key prefix, "" or ending in "/"
	url     string
	backend *s3mem.Backend
	count   *counter
}

func newFake(t testing.TB, mw func(http.Handler) http.Handler) *fake {
	t.Helper()
	be := s3mem.New()
	require.NoError(t, be.CreateBucket(bucket))
	var h http.Handler = getIfMatch(be, gofakes3.New(be).Server())
	if mw != nil {
		h = mw(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	// The URL is http://127.0.0.1:port: path-style must be chosen
	// automatically, or every request would go to bucket.127.0.0.1.
	env(t, ts.URL)
	return &fake{bucket: bucket, url: ts.URL, backend: be, count: &counter{next: http.DefaultTransport, n: map[string]int{}}}
}

// target is the S3 server of the tests that need no fault injection: the
// in-process gofakes3, or, when STABLEROW_S3_TEST_BUCKET is set, a real
// server configured by the standard AWS environment (scripts/versitygw-test.sh
// runs them so against Versity Gateway). Each test gets a fresh key prefix.
func target(t *testing.T) *fake {
	t.Helper()
	b := os.Getenv("STABLEROW_S3_TEST_BUCKET")
	if b == "" {
		return newFake(t, nil)
	}
	createBucket.Do(func() {
		// The bucket must exist before New (which checks it); a fresh
		// server has none. Already owning it is fine.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cfg, err := config.LoadDefaultConfig(ctx)
		require.NoError(t, err)
		c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
		_, err = c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &b})
		var owned *types.BucketAlreadyOwnedByYou
		if err != nil && !errors.As(err, &owned) {
			t.Logf("create bucket %s: %v (continuing: it may exist)", b, err)
		}
	})
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	return &fake{
		bucket: b,
		root:   fmt.Sprintf("s3test-%x/%s/", rnd, t.Name()),
		url:    os.Getenv("AWS_ENDPOINT_URL"),
		count:  &counter{next: http.DefaultTransport, n: map[string]int{}},
	}
}

var createBucket sync.Once

// uri is the location of prefix p in the test's bucket and root.
func (f *fake) uri(p string) string { return "s3://" + f.bucket + "/" + f.root + p }

func (f *fake) open(t testing.TB, uri string, opts s3store.Options) *s3store.Store {
	t.Helper()
	opts.HTTPClient = &http.Client{Transport: f.count}
	if opts.RetryBaseDelay == 0 {
		opts.RetryBaseDelay = time.Millisecond
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := s3store.New(ctx, uri, opts)
	require.NoError(t, err)
	f.count.reset()
	return st
}

// getIfMatch adds what gofakes3 v1.2.0 lacks: S3 answers a GET whose
// If-Match names another ETag than the object's with 412
// PreconditionFailed (gofakes3 honours If-Match only on PUT).
func getIfMatch(be *s3mem.Backend, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m := r.Header.Get("If-Match"); r.Method == http.MethodGet && m != "" {
			bucketKey := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 2)
			if len(bucketKey) == 2 {
				if obj, err := be.HeadObject(bucketKey[0], bucketKey[1]); err == nil && gofakes3.FormatETag(obj.Hash) != m {
					w.WriteHeader(http.StatusPreconditionFailed)
					fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>`)
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

func isPutIfAbsent(r *http.Request) bool {
	return r.Method == http.MethodPut && r.Header.Get("If-None-Match") == "*"
}

func hasPrefixPath(r *http.Request, p string) bool { return strings.Contains(r.URL.Path, p) }
