package store

import "errors"

var (
	// ErrNotFound reports a path that does not exist.
	ErrNotFound = errors.New("store: not found")
	// ErrExists reports a PutIfAbsent on a path that already exists.
	ErrExists = errors.New("store: already exists")
	// ErrInvalidArgument reports a bad path or an out-of-range read.
	ErrInvalidArgument = errors.New("store: invalid argument")
)
