package rowmap

import (
	"errors"

	"github.com/stablerow/stablerow/errkind"
)

var (
	// ErrCorrupt marks any decode failure: bad magic, truncation, checksum
	// mismatch, inconsistent counts.
	ErrCorrupt = errkind.New(errkind.Corrupt, "rowmap: corrupt data")
	// ErrUnknownRepresentation marks a counts encoding whose tag this reader
	// does not know. It wraps ErrCorrupt as well (see errUnknownTag).
	ErrUnknownRepresentation = errkind.New(errkind.Corrupt, "rowmap: unknown counts representation")
	// ErrInvalidArgument marks bad caller input (sizes, labels out of range).
	ErrInvalidArgument = errkind.New(errkind.InvalidArgument, "rowmap: invalid argument")
	// ErrConservation marks a mismatch between labels and source rows or
	// expected destination totals.
	ErrConservation = errors.New("rowmap: conservation violated")
)
