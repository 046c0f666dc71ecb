package btree

import (
	"fmt"
	"github.com/stablerow/stablerow/errkind"
)

var (
	// ErrCorrupt marks any decode failure of an index file: truncation,
	// checksum mismatch, an offset outside the file, inconsistent counts.
	ErrCorrupt = errkind.New(errkind.Corrupt, "btree: corrupt index")
	// ErrFormat marks a file that is not a btree file of a version this
	// reader knows (bad magic, unsupported version, wrong file kind).
	ErrFormat = errkind.New(errkind.Corrupt, "btree: unknown format")
	// ErrInvalidArgument marks bad caller input (schema, null addresses,
	// bad options).
	ErrInvalidArgument = errkind.New(errkind.InvalidArgument, "btree: invalid argument")
	// ErrKeyType marks a key whose type the index cannot hold or compare.
	ErrKeyType = errkind.New(errkind.InvalidArgument, "btree: key type mismatch")
)

func fmtErr(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
