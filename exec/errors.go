package exec

import (
	"errors"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/value"
)

// Sentinels; wrap with fmt.Errorf("%w: ...") so callers can use errors.Is.
var (
	ErrSchema    = errkind.New(errkind.InvalidArgument, "exec: schema mismatch")
	ErrNotUnique = access.ErrNotUnique // two live rows for one key of a take or a unique join
	ErrClosed    = errors.New("exec: stream closed")
)

// The value errors live in value, with the parse, format and cast
// functions that raise them. exec keeps their names because every kernel
// here raises them and many callers (engine, plan, server, the tests)
// match them: these are the same variables, so errors.Is and every
// message are unchanged.
var (
	ErrInvalidArgument = value.ErrInvalidArgument
	ErrUnsupported     = value.ErrUnsupported
	ErrOutOfRange      = value.ErrOutOfRange
	ErrDivisionByZero  = value.ErrDivisionByZero
)
