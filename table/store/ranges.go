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
