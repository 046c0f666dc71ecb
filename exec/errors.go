package exec

import (
	"errors"

	"github.com/stablerow/stablerow/errkind"
)

// Sentinels; wrap with fmt.Errorf("%w: ...") so callers can use errors.Is.
var (
	ErrInvalidArgument = errkind.New(errkind.InvalidArgument, "exec: invalid argument")
	ErrSchema          = errkind.New(errkind.InvalidArgument, "exec: schema mismatch")
	ErrNotUnique       = errors.New("exec: join key not unique")
	ErrClosed          = errors.New("exec: stream closed")
)
