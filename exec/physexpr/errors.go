package physexpr

import (
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/value"
)

// ErrSchema is a column or type that does not match its input: raised at
// bind by the expressions and by exec's operators alike. Wrap it with
// fmt.Errorf("%w: ...") so callers can use errors.Is; the message keeps
// its "exec:" prefix, as every answer and test prints it.
var ErrSchema = errkind.New(errkind.InvalidArgument, "exec: schema mismatch")

// The value errors live in value, with the parse, format and cast
// functions that raise them. physexpr keeps their names because every
// kernel here and many operators of exec raise them and many callers
// (engine, plan, server, the tests) match them: these are the same variables, so errors.Is and every
// message are unchanged.
var (
	ErrInvalidArgument = value.ErrInvalidArgument
	ErrUnsupported     = value.ErrUnsupported
	ErrOutOfRange      = value.ErrOutOfRange
	ErrDivisionByZero  = value.ErrDivisionByZero
)
