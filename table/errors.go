package table

import (
	"errors"
	"fmt"
	"github.com/stablerow/stablerow/errkind"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrNotFound: no table at the prefix, or the version does not exist.
	ErrNotFound = errkind.New(errkind.NotFound, "table: not found")
	// ErrExists: Create on a prefix that already holds a table.
	ErrExists = errors.New("table: already exists")
	// ErrConflict: a concurrent commit changed what this transaction
	// depends on and the two cannot be rebased.
	ErrConflict = errkind.New(errkind.Conflict, "table: commit conflict")
	// ErrCorrupt: a manifest or data file fails its format checks.
	ErrCorrupt = errkind.New(errkind.Corrupt, "table: corrupt file")
	// ErrSchema: data whose schema does not match the table's.
	ErrSchema = errkind.New(errkind.InvalidArgument, "table: schema mismatch")
	// ErrConservation: a write would lose, invent or duplicate rows.
	ErrConservation = errors.New("table: conservation check failed")
	// ErrInvalidArgument: a bad parameter (unknown column or fragment, ...).
	ErrInvalidArgument = errkind.New(errkind.InvalidArgument, "table: invalid argument")
)

func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
