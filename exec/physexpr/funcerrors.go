package physexpr

import (
	"fmt"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/value"
)

// Errors of the scalar functions (func.go and the files it registers),
// each PostgreSQL's error of the same name: the message after the prefix
// is PostgreSQL's message.
var (
	// ErrUnknownFunction: no function of that name (a planner bug or a
	// plan naming a function stablerow lacks).
	ErrUnknownFunction = errkind.New(errkind.Unsupported, "exec: unknown function")
	// ErrPowerArgument is PostgreSQL's invalid_argument_for_power_function
	// (2201F): sqrt of a negative number, 0 to a negative power, a
	// negative number to a non-integer power.
	// Each is also an ErrInvalidArgument.
	ErrPowerArgument = fmt.Errorf("%w: invalid argument for power function", ErrInvalidArgument)
	// ErrSubstring is substring_error (22011): a negative length.
	ErrSubstring = fmt.Errorf("%w: substring error", ErrInvalidArgument)
	// ErrEscape is value.ErrEscape (its LikeEscape raises it; the LIKE
	// kernels here raise it too).
	ErrEscape = value.ErrEscape
)

// fnError is an error of function fn that is kind (errors.Is) but reads
// as ErrInvalidArgument's prefix, fn and PostgreSQL's message: sqrt's
// domain error is invalid_argument_for_power_function by SQLSTATE, and a
// message saying "power function" for sqrt(-1) would name the wrong one.
type fnError struct {
	fn, msg string
	kind    error
}

func (e *fnError) Error() string {
	return fmt.Sprintf("%s: %s: %s", ErrInvalidArgument, e.fn, e.msg)
}
func (e *fnError) Unwrap() error { return e.kind }
