package deletion

import (
	"github.com/stablerow/stablerow/errkind"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrCorrupt reports an encoded vector that is truncated, has a bad
	// magic/version/checksum, or holds an invalid roaring payload.
	ErrCorrupt = errkind.New(errkind.Corrupt, "deletion: corrupt vector")
)
