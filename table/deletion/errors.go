package deletion

import "errors"

// Sentinel errors; test with errors.Is.
var (
	// ErrCorrupt reports an encoded vector that is truncated, has a bad
	// magic/version/checksum, or holds an invalid roaring payload.
	ErrCorrupt = errors.New("deletion: corrupt vector")
)
