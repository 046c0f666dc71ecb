package store

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"
)

// Store is a flat namespace of immutable-ish objects addressed by
// slash-separated relative paths.
type Store interface {
	// Get returns the whole object, or ErrNotFound.
	Get(ctx context.Context, path string) ([]byte, error)
	// GetRange returns exactly n bytes at off, or ErrInvalidArgument when the
	// range does not lie inside the object.
	GetRange(ctx context.Context, path string, off, n int64) ([]byte, error)
	// Size returns the object's length in bytes.
	Size(ctx context.Context, path string) (int64, error)
	// Put atomically creates or replaces the object: a reader sees the old
	// bytes or the new ones, never a torn mix.
	Put(ctx context.Context, path string, data []byte) error
	// PutIfAbsent atomically creates the object, or fails with ErrExists when
	// it is already there. Manifest commits rely on it.
	PutIfAbsent(ctx context.Context, path string, data []byte) error
	// List returns the sorted paths that start with prefix.
	List(ctx context.Context, prefix string) ([]string, error)
	// Delete removes the object; deleting a missing object is not an error.
	Delete(ctx context.Context, path string) error
	// Open returns a random-access reader over the object.
	Open(ctx context.Context, path string) (Reader, error)
}

// Reader is random access to one object.
type Reader interface {
	io.ReaderAt
	Size() int64
	io.Closer
}

// cleanPath validates a store path: relative, slash-separated, no "..".
func cleanPath(p string) (string, error) {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return "", fmt.Errorf("%w: bad path %q", ErrInvalidArgument, p)
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%w: bad path %q", ErrInvalidArgument, p)
	}
	return c, nil
}

// checkRange validates a range read against an object of the given size.
func checkRange(p string, size, off, n int64) error {
	if off < 0 || n < 0 || off > size || n > size-off {
		return fmt.Errorf("%w: range [%d, %d+%d) outside %q of %d bytes", ErrInvalidArgument, off, off, n, p, size)
	}
	return nil
}
