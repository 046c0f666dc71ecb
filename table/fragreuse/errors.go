package fragreuse

import (
	"fmt"
	"github.com/stablerow/stablerow/errkind"
)

var (
	// ErrCorrupt marks a transition or rowmap that does not match what the
	// history says about it (destinations, row counts).
	ErrCorrupt = errkind.New(errkind.Corrupt, "fragreuse: corrupt history")
	// ErrInvalidArgument marks bad caller input: slices of different
	// lengths, an address past the end of a source fragment.
	ErrInvalidArgument = errkind.New(errkind.InvalidArgument, "fragreuse: invalid argument")
)

func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
