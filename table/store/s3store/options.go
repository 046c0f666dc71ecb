package s3store

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"math/rand/v2"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/stablerow/stablerow/table/store"
)

// Options tune a Store. The zero value is the production default; the AWS
// configuration itself (credentials, region, endpoint) deliberately has no
// field here: it comes from the standard chain.
type Options struct {
	// MaxAttempts bounds the attempts of one request, the first included
	// (default: AWS_MAX_ATTEMPTS or the AWS config file's max_attempts,
	// else 5). Throttling, 5xx answers and connection failures are retried
	// with exponential backoff; what outlives them is ErrUnavailable.
	MaxAttempts int
	// MaxBackoff caps the delay between two attempts (default 20s).
	MaxBackoff time.Duration
	// RetryBaseDelay, when set, replaces the SDK's base delays (50ms, and
	// 1s for throttling) of the exponential backoff. Tests shorten it.
	RetryBaseDelay time.Duration
	// CoalesceGap merges two ranges whose gap is at most this many bytes
	// into one GET (default 64 KiB; negative: never merge).
	CoalesceGap int64
	// MaxCoalesced stops merging once a group would exceed this many bytes
	// (default 16 MiB), so one huge GET does not serialise a read.
	MaxCoalesced int64
	// Parallelism bounds the GETs one ReadRanges call has in flight
	// (default 8).
	Parallelism int
	// Cache, when set, holds the blocks that Readers and ReadRanges fetch.
	// It may be shared by several stores.
	Cache *Cache
	// BlockSize is the unit of cached reads (default 64 KiB).
	BlockSize int64
	// ReaderBlocks sizes, in blocks, the private cache each Reader gets
	// when Cache is nil (default 16, i.e. 1 MiB): a file reader's many
	// small reads (Arrow IPC reads a message header, then its body) then
	// cost one GET per block, not one per read. Negative: no private
	// cache, every ReadAt is a GET of exactly its bytes.
	ReaderBlocks int
	// ListPageSize is the MaxKeys of each ListObjectsV2 page (0: the
	// server's default, 1000 on S3).
	ListPageSize int32
	// HTTPClient replaces the SDK's HTTP client (instrumentation, tests).
	HTTPClient aws.HTTPClient
}

func (o Options) withDefaults() Options {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 20 * time.Second
	}
	if o.CoalesceGap == 0 {
		o.CoalesceGap = 64 << 10
	}
	if o.MaxCoalesced <= 0 {
		o.MaxCoalesced = 16 << 20
	}
	if o.Parallelism <= 0 {
		o.Parallelism = 8
	}
	if o.BlockSize <= 0 {
		o.BlockSize = 64 << 10
	}
	if o.ReaderBlocks == 0 {
		o.ReaderBlocks = 16
	}
	return o
}

// newClient builds the S3 client from the standard AWS configuration chain
// and says which endpoint it sends requests to and the options in force
// (opts with the defaults filled in).
func newClient(ctx context.Context, opts Options) (*s3.Client, string, Options, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, "", opts, fmt.Errorf("%w: aws configuration: %w", store.ErrInvalidArgument, err)
	}
	if opts.MaxAttempts <= 0 {
		// AWS_MAX_ATTEMPTS (or max_attempts in the AWS config file) sets the
		// retry budget as it does for every AWS SDK; our default otherwise.
		opts.MaxAttempts = cfg.RetryMaxAttempts
	}
	opts = opts.withDefaults()
	if cfg.Region == "" {
		// S3 signs requests with a region even for a custom endpoint; an
		// S3-compatible server typically accepts us-east-1, S3's default.
		cfg.Region = "us-east-1"
	}
	endpoint := os.Getenv("AWS_ENDPOINT_URL_S3")
	if endpoint == "" && cfg.BaseEndpoint != nil {
		endpoint = *cfg.BaseEndpoint
	}
	pathStyle := wantPathStyle(endpoint, os.Getenv("AWS_S3_FORCE_PATH_STYLE"))
	shown := endpoint
	if shown == "" {
		shown = "https://s3." + cfg.Region + ".amazonaws.com"
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = o.UsePathStyle || pathStyle
		// Flexible checksums "when required" only: the streaming trailer
		// checksums the SDK sends by default are not understood by many
		// S3-compatible servers; Put sends Content-MD5 instead, which every
		// server checks.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		o.Retryer = newRetryer(opts)
		if opts.HTTPClient != nil {
			// Set on the client, not the config: the config would try to
			// apply AWS_CA_BUNDLE to it and refuse a plain *http.Client.
			o.HTTPClient = opts.HTTPClient
		}
	}), shown, opts, nil
}

// newRetryer is the SDK's standard retryer (retries 500/502/503/504, 429
// and the throttling codes such as SlowDown, with exponential backoff and
// full jitter) with stablerow's attempt bound.
func newRetryer(opts Options) aws.Retryer {
	return retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = opts.MaxAttempts
		so.MaxBackoff = opts.MaxBackoff
		if opts.RetryBaseDelay > 0 {
			so.Backoff = jitterBackoff{base: opts.RetryBaseDelay, max: opts.MaxBackoff}
		}
	})
}

// jitterBackoff is exponential backoff with full jitter from a given base.
type jitterBackoff struct{ base, max time.Duration }

func (j jitterBackoff) BackoffDelay(attempt int, _ error) (time.Duration, error) {
	d := j.base << min(attempt, 30)
	if d <= 0 || d > j.max {
		d = j.max
	}
	return time.Duration(rand.Int64N(int64(d) + 1)), nil
}

// wantPathStyle reports whether requests must be path-style
// (http://host/bucket/key): always when forced, and for an endpoint that
// is an IP address or localhost, where virtual-host buckets cannot resolve.
func wantPathStyle(endpoint, force string) bool {
	if strings.EqualFold(strings.TrimSpace(force), "true") {
		return true
	}
	if endpoint == "" {
		return false
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return false
	}
	h := u.Hostname()
	return net.ParseIP(h) != nil || h == "localhost" || strings.HasSuffix(h, ".localhost")
}
