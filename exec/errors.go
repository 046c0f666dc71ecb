package exec

import "errors"

// Sentinels; wrap with fmt.Errorf("%w: ...") so callers can use errors.Is.
var (
	ErrInvalidArgument = errors.New("exec: invalid argument")
	ErrSchema          = errors.New("exec: schema mismatch")
	ErrNotUnique       = errors.New("exec: join key not unique")
	ErrClosed          = errors.New("exec: stream closed")
)
