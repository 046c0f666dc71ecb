package value

import (
	"fmt"

	"github.com/stablerow/stablerow/errkind"
)

// The value errors. They moved here from exec with the functions that
// raise them; exec/physexpr names the same variables
// (physexpr.ErrOutOfRange is value.ErrOutOfRange), so errors.Is matches
// across both names. The messages keep their "exec:" prefix: an error's full text (err.Error())
// is what callers and their logs have always seen, and moving a function
// to another package must not change it.
var (
	// ErrInvalidArgument: an input that is not a value of its type
	// ("invalid input syntax for type numeric"), PostgreSQL's 22P02 and
	// its other data exceptions that are not a range.
	ErrInvalidArgument = errkind.Category(errkind.InvalidArgument, "exec: invalid argument")
	// ErrUnsupported: something PostgreSQL has and stablerow does not
	// (here numeric NaN and the julian and time zone extract units;
	// physexpr raises the same error for expressions it cannot evaluate).
	ErrUnsupported = errkind.New(errkind.Unsupported, "exec: unsupported")
)

// Value errors raised while evaluating expressions, as PostgreSQL raises
// them: a result outside its type ("bigint out of range", "value out of
// range: overflow") and a zero divisor.
var (
	ErrOutOfRange     = errkind.Category(errkind.OutOfRange, "exec: value out of range")
	ErrDivisionByZero = errkind.New(errkind.InvalidArgument, "exec: division by zero")
)

// ErrEscape is invalid_escape_sequence (22025): a LIKE pattern ending
// in its escape character, an ESCAPE string of two characters.
// It is also an ErrInvalidArgument.
var ErrEscape = fmt.Errorf("%w: invalid escape sequence", ErrInvalidArgument)
