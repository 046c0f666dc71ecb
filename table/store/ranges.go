package store

import "context"

// Range is a byte range of an object: Len bytes at Off.
type Range struct {
	Off, Len int64
}

// End returns the offset just past the range.
func (r Range) End() int64 { return r.Off + r.Len }

// RangeReader is implemented by stores for which many small reads cost much
// more than a few larger ones (object stores). ReadRanges returns the bytes
// of each range, in the order asked; the store is free to merge nearby
// ranges and to fetch them in parallel. A range outside the object is
// ErrInvalidArgument.
type RangeReader interface {
	ReadRanges(ctx context.Context, path string, ranges []Range) ([][]byte, error)
}

// MultiRangeReader is implemented by Readers of object stores: ReadRanges
// fetches several ranges of the reader's object in one call (merged and
// in parallel, as RangeReader), so a caller that knows all the ranges it
// needs pays one round of requests, not one per range.
type MultiRangeReader interface {
	ReadRanges(ctx context.Context, ranges []Range) ([][]byte, error)
}

// KnownOpener is implemented by stores whose Open costs a request (an
// object store's HEAD). OpenKnown opens an immutable object whose size the
// caller already knows from a manifest, with id a content identity the
// manifest records for it: no request is sent, and cached bytes are keyed
// by (path, id, size), so they are never served for other contents. The
// caller checks every byte it reads (the manifest's checksums); an object
// shorter than size is an error of the read, never short data.
type KnownOpener interface {
	OpenKnown(ctx context.Context, path string, size int64, id string) (Reader, error)
}
