package rowid

import (
	"fmt"
	"github.com/stablerow/stablerow/errkind"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrCorrupt reports an encoded sequence that is truncated, has a bad
	// magic/version/checksum, or describes impossible segments.
	ErrCorrupt = errkind.New(errkind.Corrupt, "rowid: corrupt sequence")
	// ErrInvalidArgument reports a bad argument (e.g. offsets not ascending).
	ErrInvalidArgument = errkind.New(errkind.InvalidArgument, "rowid: invalid argument")
)

func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
