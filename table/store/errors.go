package store

import (
	"errors"

	"github.com/stablerow/stablerow/errkind"
)

var (
	// ErrNotFound reports a path that does not exist.
	ErrNotFound = errkind.New(errkind.NotFound, "store: not found")
	// ErrExists reports a PutIfAbsent on a path that already exists.
	ErrExists = errors.New("store: already exists")
	// ErrInvalidArgument reports a bad path or an out-of-range read.
	ErrInvalidArgument = errkind.New(errkind.InvalidArgument, "store: invalid argument")
)
