package exec

import (
	"errors"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/errkind"
)

// Sentinels; wrap with fmt.Errorf("%w: ...") so callers can use errors.Is.
var (
	ErrInvalidArgument = errkind.Category(errkind.InvalidArgument, "exec: invalid argument")
	ErrSchema          = errkind.New(errkind.InvalidArgument, "exec: schema mismatch")
	ErrUnsupported     = errkind.New(errkind.Unsupported, "exec: unsupported")
	ErrNotUnique       = access.ErrNotUnique // two live rows for one key of a take or a unique join
	ErrClosed          = errors.New("exec: stream closed")
)

// Value errors raised while evaluating expressions, as PostgreSQL raises
// them: a result outside its type ("bigint out of range", "value out of
// range: overflow") and a zero divisor.
var (
	ErrOutOfRange     = errkind.Category(errkind.OutOfRange, "exec: value out of range")
	ErrDivisionByZero = errkind.New(errkind.InvalidArgument, "exec: division by zero")
)
