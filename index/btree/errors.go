package btree

import (
	"errors"
	"fmt"
)

var (
	// ErrCorrupt marks any decode failure of an index file: truncation,
	// checksum mismatch, an offset outside the file, inconsistent counts.
	ErrCorrupt = errors.New("btree: corrupt index")
	// ErrFormat marks a file that is not a btree file of a version this
	// reader knows (bad magic, unsupported version, wrong file kind).
	ErrFormat = errors.New("btree: unknown format")
	// ErrInvalidArgument marks bad caller input (schema, null addresses,
	// bad options).
	ErrInvalidArgument = errors.New("btree: invalid argument")
	// ErrKeyType marks a key whose type the index cannot hold or compare.
	ErrKeyType = errors.New("btree: key type mismatch")
)

func fmtErr(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
