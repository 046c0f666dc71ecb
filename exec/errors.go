package exec

import (
	"errors"

	"github.com/stablerow/stablerow/access"
)

// The operators' own errors; the expression and value errors (ErrSchema,
// ErrInvalidArgument, ErrOutOfRange, ...) are package physexpr's. Wrap
// with fmt.Errorf("%w: ...") so callers can use errors.Is.
var (
	ErrNotUnique = access.ErrNotUnique // two live rows for one key of a take or a unique join
	ErrClosed    = errors.New("exec: stream closed")
)
