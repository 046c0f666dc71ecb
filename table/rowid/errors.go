package rowid

import (
	"errors"
	"fmt"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrCorrupt reports an encoded sequence that is truncated, has a bad
	// magic/version/checksum, or describes impossible segments.
	ErrCorrupt = errors.New("rowid: corrupt sequence")
	// ErrInvalidArgument reports a bad argument (e.g. offsets not ascending).
	ErrInvalidArgument = errors.New("rowid: invalid argument")
)

func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
