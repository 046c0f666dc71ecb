package engine

import (
	"fmt"
	"runtime/debug"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/errkind"
)

// Sentinel errors; test with errors.Is. Each matches its errkind too.
var (
	ErrUnknownTable = errkind.Category(errkind.NotFound, "engine: unknown table")
	ErrTableExists  = errkind.New(errkind.InvalidArgument, "engine: table already exists")
	ErrUnsupported  = errkind.New(errkind.Unsupported, "engine: unsupported")
	// ErrParam: a bound parameter is missing, of a Go type the engine does
	// not bind, or of the wrong shape or type for its use; the message names
	// the parameter and what it must be.
	ErrParam = errkind.Category(errkind.InvalidArgument, "engine: bad parameter")
	ErrIndex = errkind.New(errkind.InvalidArgument, "engine: index error")
	// ErrIndexExists: CREATE INDEX of a name the table already has.
	// (the access layer reports it; this is the same sentinel).
	ErrIndexExists = access.ErrIndexExists
	// ErrInternal: a bug in stablerow, a panic recovered at the engine's
	// boundary (see InternalError).
	ErrInternal = errkind.New(errkind.Internal, "engine: internal error: please report")
)

// InternalError is a panic recovered while a statement ran. Its message is
// ErrInternal's only: the panic value and the stack go to debug output
// (the CLI prints them under -debug or STABLEROW_DEBUG=1), never into the
// message a user reads, since they say nothing about the user's input.
type InternalError struct {
	Panic any    // the recovered value
	Stack []byte // the goroutine's stack where it was recovered
}

func (e *InternalError) Error() string { return ErrInternal.Error() }
func (e *InternalError) Unwrap() error { return ErrInternal }

// Debug is the panic and its stack, for debug output.
func (e *InternalError) Debug() string {
	return fmt.Sprintf("panic: %v\n\n%s", e.Panic, e.Stack)
}

// recoverInternal turns a panic in the calling function into an
// *InternalError in *err. Deferred at every entry point that runs planner
// or operator code (Query, Rows.Next, ExecSubstrait), so no panic crosses
// the engine's API.
func recoverInternal(err *error) {
	if p := recover(); p != nil {
		*err = &InternalError{Panic: p, Stack: debug.Stack()}
	}
}
