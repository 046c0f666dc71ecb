package s3store

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/stablerow/stablerow/table/store"
)

// Store is a store.Store over the objects under one bucket prefix. It is
// safe for concurrent use.
type Store struct {
	c      *s3.Client
	bucket string
	prefix string // "" or "some/prefix/"
	opts   Options
	// endpoint is the server requests go to, for error messages: the
	// configured endpoint URL, or AWS's regional one.
	endpoint string
}

var (
	_ store.Store       = (*Store)(nil)
	_ store.RangeReader = (*Store)(nil)
	_ store.KnownOpener = (*Store)(nil)
)

// New opens the store at uri ("s3://bucket/prefix"). It checks that the
// bucket exists, so a typo fails here rather than at the first commit.
func New(ctx context.Context, uri string, opts Options) (*Store, error) {
	u, err := store.ParseURI(uri)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "s3" {
		return nil, fmt.Errorf("%w: %q is not an s3:// location", store.ErrInvalidArgument, uri)
	}
	c, endpoint, opts, err := newClient(ctx, opts)
	if err != nil {
		return nil, err
	}
	s := &Store{c: c, bucket: u.Bucket, opts: opts, endpoint: endpoint}
	if u.Prefix != "" {
		s.prefix = u.Prefix + "/"
	}
	if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.bucket}); err != nil {
		if status(err) == http.StatusNotFound {
			return nil, fmt.Errorf("%w: %q: %w", ErrNoBucket, s.bucket, err)
		}
		return nil, s.mapErr("head bucket", s.bucket, err)
	}
	return s, nil
}

// Client returns the underlying S3 client.
func (s *Store) Client() *s3.Client { return s.c }

// key returns the object key of store path p.
func (s *Store) key(p string) (string, error) {
	c, err := store.CleanPath(p)
	if err != nil {
		return "", err
	}
	return s.prefix + c, nil
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, p string) ([]byte, error) {
	k, err := s.key(p)
	if err != nil {
		return nil, err
	}
	out, err := s.c.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &k})
	if err != nil {
		return nil, s.mapErr("get", p, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, s.mapErr("get", p, err)
	}
	if out.ContentLength != nil && int64(len(b)) != *out.ContentLength {
		return nil, fmt.Errorf("%w: get %q: %d bytes, Content-Length %d", ErrShortRead, p, len(b), *out.ContentLength)
	}
	return b, nil
}

// GetRange implements store.Store.
func (s *Store) GetRange(ctx context.Context, p string, off, n int64) ([]byte, error) {
	k, err := s.key(p)
	if err != nil {
		return nil, err
	}
	if off < 0 || n < 0 {
		return nil, fmt.Errorf("%w: range [%d, %d+%d) of %q", store.ErrInvalidArgument, off, off, n, p)
	}
	if n == 0 {
		// HTTP has no empty range; the size check alone decides.
		size, err := s.Size(ctx, p)
		if err != nil {
			return nil, err
		}
		if off > size {
			return nil, fmt.Errorf("%w: range [%d, %d) outside %q of %d bytes", store.ErrInvalidArgument, off, off, p, size)
		}
		return []byte{}, nil
	}
	b, _, err := s.getRange(ctx, p, k, "", store.Range{Off: off, Len: n})
	return b, err
}

// getRange is one ranged GET, conditional on etag when it is set. It returns
// the bytes and the object's total size from Content-Range. A range that
// runs past the end of the object is ErrInvalidArgument (S3 answers 416 for
// a start past the end, and a short 206 for a range that straddles it).
func (s *Store) getRange(ctx context.Context, p, k, etag string, r store.Range) ([]byte, int64, error) {
	in := &s3.GetObjectInput{Bucket: &s.bucket, Key: &k, Range: aws.String(fmt.Sprintf("bytes=%d-%d", r.Off, r.End()-1))}
	if etag != "" {
		in.IfMatch = &etag
	}
	out, err := s.c.GetObject(ctx, in)
	if err != nil {
		if status(err) == http.StatusPreconditionFailed {
			return nil, 0, fmt.Errorf("%w: %q: %w", ErrChanged, p, err)
		}
		if status(err) == http.StatusRequestedRangeNotSatisfiable || code(err) == "InvalidRange" {
			return nil, 0, fmt.Errorf("%w: range [%d, %d) outside %q: %w", store.ErrInvalidArgument, r.Off, r.End(), p, err)
		}
		return nil, 0, s.mapErr("get range", p, err)
	}
	defer out.Body.Close()
	total := int64(-1)
	if out.ContentRange != nil {
		if i := strings.LastIndexByte(*out.ContentRange, '/'); i >= 0 {
			fmt.Sscan((*out.ContentRange)[i+1:], &total)
		}
	}
	// Read at most one byte more than asked, to detect a server that
	// ignored the Range header without buffering the whole object.
	b, err := io.ReadAll(io.LimitReader(out.Body, r.Len+1))
	if err != nil {
		return nil, 0, s.mapErr("get range", p, err)
	}
	if int64(len(b)) != r.Len {
		if total >= 0 && r.End() > total {
			return nil, total, fmt.Errorf("%w: range [%d, %d) outside %q of %d bytes", store.ErrInvalidArgument, r.Off, r.End(), p, total)
		}
		return nil, total, fmt.Errorf("%w: %q: range [%d, %d) returned %d bytes", ErrShortRead, p, r.Off, r.End(), len(b))
	}
	return b, total, nil
}

// Size implements store.Store.
func (s *Store) Size(ctx context.Context, p string) (int64, error) {
	size, _, err := s.head(ctx, p)
	return size, err
}

// head returns the object's size and ETag.
func (s *Store) head(ctx context.Context, p string) (int64, string, error) {
	k, err := s.key(p)
	if err != nil {
		return 0, "", err
	}
	out, err := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &k})
	if err != nil {
		return 0, "", s.mapErr("head", p, err)
	}
	return aws.ToInt64(out.ContentLength), aws.ToString(out.ETag), nil
}

// put uploads data with Content-MD5, so the server rejects a body damaged
// in transit.
func (s *Store) put(ctx context.Context, p string, data []byte, ifNoneMatch bool) error {
	k, err := s.key(p)
	if err != nil {
		return err
	}
	sum := md5.Sum(data)
	in := &s3.PutObjectInput{
		Bucket:        &s.bucket,
		Key:           &k,
		Body:          bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))),
		ContentMD5:    aws.String(base64.StdEncoding.EncodeToString(sum[:])),
	}
	if ifNoneMatch {
		in.IfNoneMatch = aws.String("*")
	}
	if _, err := s.c.PutObject(ctx, in); err != nil {
		// 412: the object exists. 409 ConditionalRequestConflict: another
		// conditional write to the key is in flight; S3 lets at most one of
		// them succeed, so for us the race is lost either way.
		if ifNoneMatch && (status(err) == http.StatusPreconditionFailed || status(err) == http.StatusConflict) {
			return s.lostOrOurs(ctx, p, data, status(err) == http.StatusPreconditionFailed)
		}
		return s.mapErr("put", p, err)
	}
	return nil
}

// lostOrOurs decides a conditional write the server refused. The refusal
// can be an echo of our own write: the first attempt landed, its answer was
// lost (a timeout, a reset, a 5xx from a proxy), and the SDK's retry then
// found the object. Reporting that as ErrExists would make the table rebase
// and commit the same transaction a second time. So the object is read
// back: our exact bytes mean the write is ours (a manifest holds the unique
// ids of its transaction's files, so another writer's manifest never has
// the same bytes); anything else, or no object yet after a 409 (a
// concurrent write still in flight), is a lost race.
//
// A 412 says the object exists, so reading it back must find it (S3 reads
// are strongly consistent), at once or, for a write still in flight,
// within moments. When it does not, the server holds the trace
// of a write that never completed (Versity Gateway's posix backend, killed
// mid-PUT, can leave an object's metadata without its data): that is
// ErrGhost, not a lost race, since a rebase would collide with it forever.
func (s *Store) lostOrOurs(ctx context.Context, p string, data []byte, exists bool) error {
	got, err := s.Get(ctx, p)
	// A 412 can also answer a write still in flight on a server that
	// checks the condition before the object is readable (Versity Gateway
	// writes its metadata first): give such a write time to land before
	// calling the object a ghost.
	for d := ghostWait; exists && errors.Is(err, store.ErrNotFound) && d <= maxGhostWait; d *= 2 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
		got, err = s.Get(ctx, p)
	}
	switch {
	case err == nil && bytes.Equal(got, data):
		return nil
	case exists && errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("%w: %q: a conditional write was refused because it exists, yet it cannot be read", ErrGhost, p)
	case err == nil || errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("%w: %q", store.ErrExists, p)
	default:
		return fmt.Errorf("put if absent %q: refused, and reading it back failed: %w", p, err)
	}
}

// The read-back of a refused conditional write that finds nothing retries
// after ghostWait, doubling up to maxGhostWait (about 2.5 s in all).
const (
	ghostWait    = 10 * time.Millisecond
	maxGhostWait = 1280 * time.Millisecond
)

// Put implements store.Store. An S3 PUT is atomic: readers see the old
// object or the new one.
func (s *Store) Put(ctx context.Context, p string, data []byte) error {
	return s.put(ctx, p, data, false)
}

// PutIfAbsent implements store.Store with "If-None-Match: *".
func (s *Store) PutIfAbsent(ctx context.Context, p string, data []byte) error {
	return s.put(ctx, p, data, true)
}

// List implements store.Store, following continuation tokens.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	if strings.HasPrefix(prefix, "/") || strings.Contains(prefix, "\\") {
		return nil, fmt.Errorf("%w: bad prefix %q", store.ErrInvalidArgument, prefix)
	}
	var out []string
	in := &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.prefix + prefix)}
	if s.opts.ListPageSize > 0 {
		in.MaxKeys = aws.Int32(s.opts.ListPageSize)
	}
	pg := s3.NewListObjectsV2Paginator(s.c, in)
	for pg.HasMorePages() {
		page, err := pg.NextPage(ctx)
		if err != nil {
			return nil, s.mapErr("list", prefix, err)
		}
		for _, o := range page.Contents {
			out = append(out, strings.TrimPrefix(aws.ToString(o.Key), s.prefix))
		}
	}
	slices.Sort(out)
	return out, nil
}

// Delete implements store.Store.
func (s *Store) Delete(ctx context.Context, p string) error {
	k, err := s.key(p)
	if err != nil {
		return err
	}
	if _, err := s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &k}); err != nil {
		if status(err) == http.StatusNotFound && code(err) != "NoSuchBucket" {
			return nil
		}
		return s.mapErr("delete", p, err)
	}
	return nil
}

// Open implements store.Store: one HEAD pins the object's size and ETag.
func (s *Store) Open(ctx context.Context, p string) (store.Reader, error) {
	return s.open(ctx, p)
}

func (s *Store) open(ctx context.Context, p string) (*Reader, error) {
	k, err := s.key(p)
	if err != nil {
		return nil, err
	}
	size, etag, err := s.head(ctx, p)
	if err != nil {
		return nil, err
	}
	r := &Reader{s: s, path: p, key: k, size: size, etag: etag, ident: etag, ctx: ctx, cache: s.opts.Cache}
	if r.cache == nil && s.opts.ReaderBlocks > 0 {
		r.cache = NewCache(int64(s.opts.ReaderBlocks) * s.opts.BlockSize)
	}
	return r, nil
}

// OpenKnown implements store.KnownOpener: a Reader of an immutable object
// of known size, with no HEAD. Its GETs carry no If-Match (there is no
// ETag yet); its cached blocks are keyed by the caller's content id in the
// ETag's place. A range the object turns out not to hold is ErrShortRead
// (a Corrupt), not an invalid argument: the caller asked within the size
// its manifest records.
func (s *Store) OpenKnown(ctx context.Context, p string, size int64, id string) (store.Reader, error) {
	k, err := s.key(p)
	if err != nil {
		return nil, err
	}
	if size < 0 || id == "" {
		return nil, fmt.Errorf("%w: open %q: size %d, id %q", store.ErrInvalidArgument, p, size, id)
	}
	r := &Reader{s: s, path: p, key: k, size: size, ident: "id:" + id, known: true, ctx: ctx, cache: s.opts.Cache}
	if r.cache == nil && s.opts.ReaderBlocks > 0 {
		r.cache = NewCache(int64(s.opts.ReaderBlocks) * s.opts.BlockSize)
	}
	return r, nil
}

// ReadRanges implements store.RangeReader. Without a shared Cache it reads
// exactly the coalesced ranges: a private block cache would only add
// bytes to a one-shot read.
func (s *Store) ReadRanges(ctx context.Context, p string, ranges []store.Range) ([][]byte, error) {
	r, err := s.open(ctx, p)
	if err != nil {
		return nil, err
	}
	r.cache = s.opts.Cache
	return r.ReadRanges(ctx, ranges)
}
