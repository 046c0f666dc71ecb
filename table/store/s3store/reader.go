package s3store

import (
	"context"
	"errors"
	"fmt"
	"io"

	"golang.org/x/sync/errgroup"

	"github.com/stablerow/stablerow/table/store"
)

// Reader is random access to one object as it was when opened: every GET
// carries If-Match with the ETag seen by Open, so a replaced object is
// ErrChanged, never a mix of two versions.
//
// io.ReaderAt has no context, so ReadAt uses the context given to Open:
// cancelling it cancels the reader's reads.
type Reader struct {
	s         *Store
	path, key string
	size      int64
	etag      string // If-Match of every GET; "" for OpenKnown
	ident     string // the identity cached blocks are keyed by: the ETag, or "id:" + a content id
	known     bool   // opened by OpenKnown: size from a manifest, not the server
	ctx       context.Context
	cache     *Cache // Options.Cache, or the reader's own, or nil
}

var (
	_ store.Reader           = (*Reader)(nil)
	_ store.MultiRangeReader = (*Reader)(nil)
)

// Size implements store.Reader.
func (r *Reader) Size() int64 { return r.size }

// Close implements store.Reader; a Reader holds no connection.
func (r *Reader) Close() error { return nil }

// ReadAt implements io.ReaderAt. A read that runs past the end returns the
// bytes up to the end and io.EOF, as io.ReaderAt requires.
func (r *Reader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%w: negative offset %d in %q", store.ErrInvalidArgument, off, r.path)
	}
	if off >= r.size {
		if len(p) == 0 && off == r.size {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := min(int64(len(p)), r.size-off)
	rg := []store.Range{{Off: off, Len: n}}
	if err := r.check(rg); err != nil {
		return 0, err
	}
	var bs [][]byte
	var err error
	if r.cache == nil {
		bs, err = r.fetch(r.ctx, rg)
	} else {
		bs, err = r.readCached(r.ctx, rg)
	}
	if err != nil {
		return 0, err
	}
	copy(p, bs[0])
	if n < int64(len(p)) {
		return int(n), io.EOF
	}
	return int(n), nil
}

// ReadRanges implements store.MultiRangeReader (and the body of
// store.RangeReader) for this object. Unlike ReadAt it reads and caches
// exactly the ranges asked, not aligned blocks: its callers know the
// ranges they need (a data file's tail, the spans of its batches), ask for
// the same ones again, and would pay up to two blocks per range otherwise.
func (r *Reader) ReadRanges(ctx context.Context, ranges []store.Range) ([][]byte, error) {
	if err := r.check(ranges); err != nil {
		return nil, err
	}
	if r.cache == nil {
		return r.fetch(ctx, ranges)
	}
	return r.readExact(ctx, ranges)
}

func (r *Reader) check(ranges []store.Range) error {
	for _, rg := range ranges {
		if rg.Off < 0 || rg.Len < 0 || rg.Off > r.size || rg.Len > r.size-rg.Off {
			return fmt.Errorf("%w: range [%d, %d+%d) outside %q of %d bytes", store.ErrInvalidArgument, rg.Off, rg.Off, rg.Len, r.path, r.size)
		}
	}
	return nil
}

// readExact serves each range from the cache under its exact (offset,
// length), fetching the misses (coalesced, in parallel) and caching them.
func (r *Reader) readExact(ctx context.Context, ranges []store.Range) ([][]byte, error) {
	out := make([][]byte, len(ranges))
	var missing []store.Range
	var at []int
	for i, rg := range ranges {
		if rg.Len == 0 {
			out[i] = []byte{}
			continue
		}
		if v, ok := r.cache.Get(r.cacheKey(rg)); ok {
			out[i] = v
			continue
		}
		missing = append(missing, rg)
		at = append(at, i)
	}
	got, err := r.fetch(ctx, missing)
	if err != nil {
		return nil, err
	}
	for j, i := range at {
		out[i] = got[j]
		r.cache.Put(r.cacheKey(missing[j]), got[j])
	}
	return out, nil
}

// readCached serves ranges from aligned blocks, fetching the missing blocks
// (coalesced, in parallel) and caching them.
func (r *Reader) readCached(ctx context.Context, ranges []store.Range) ([][]byte, error) {
	bs := r.s.opts.BlockSize
	c := r.cache
	blocks := map[int64][]byte{}
	var missing []store.Range
	for _, rg := range ranges {
		if rg.Len == 0 {
			continue
		}
		for b := rg.Off / bs; b <= (rg.End()-1)/bs; b++ {
			if _, ok := blocks[b]; ok {
				continue
			}
			blk := store.Range{Off: b * bs, Len: min(bs, r.size-b*bs)}
			if v, ok := c.Get(r.cacheKey(blk)); ok {
				blocks[b] = v
				continue
			}
			blocks[b] = nil // asked for; filled below
			missing = append(missing, blk)
		}
	}
	got, err := r.fetch(ctx, missing)
	if err != nil {
		return nil, err
	}
	for i, blk := range missing {
		blocks[blk.Off/bs] = got[i]
		c.Put(r.cacheKey(blk), got[i])
	}
	out := make([][]byte, len(ranges))
	for i, rg := range ranges {
		buf := make([]byte, rg.Len)
		for o := int64(0); o < rg.Len; {
			at := rg.Off + o
			blk := blocks[at/bs]
			o += int64(copy(buf[o:], blk[at%bs:]))
		}
		out[i] = buf
	}
	return out, nil
}

func (r *Reader) cacheKey(blk store.Range) CacheKey {
	return CacheKey{Path: r.s.bucket + "/" + r.key, ETag: r.ident, Size: r.size, Off: blk.Off, Len: blk.Len}
}

// fetch reads ranges (already checked against the size) with coalesced
// GETs, at most Options.Parallelism in flight. Each result is its own
// slice: a value that outlives the call (in the cache) never pins a
// larger group buffer.
func (r *Reader) fetch(ctx context.Context, ranges []store.Range) ([][]byte, error) {
	out := make([][]byte, len(ranges))
	for i, rg := range ranges {
		if rg.Len == 0 {
			out[i] = []byte{}
		}
	}
	groups := coalesce(ranges, r.s.opts.CoalesceGap, r.s.opts.MaxCoalesced)
	eg, ctx := errgroup.WithContext(ctx)
	eg.SetLimit(r.s.opts.Parallelism)
	for _, g := range groups {
		eg.Go(func() error {
			b, _, err := r.s.getRange(ctx, r.path, r.key, r.etag, g.Range)
			if err != nil && r.known && errors.Is(err, store.ErrInvalidArgument) {
				return fmt.Errorf("%w: %q is shorter than its %d bytes: %w", ErrShortRead, r.path, r.size, err)
			}
			if err != nil {
				return err
			}
			for _, m := range g.members {
				rg := ranges[m]
				sub := b[rg.Off-g.Off : rg.End()-g.Off]
				if len(g.members) > 1 {
					sub = append([]byte(nil), sub...)
				}
				out[m] = sub
			}
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}
