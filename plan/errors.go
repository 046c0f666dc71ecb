package plan

import (
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/stablerow/stablerow/errkind"
)

// Sentinels; errors are wrapped with fmt.Errorf("plan: ...: %w", ErrX) so
// callers can use errors.Is.
var (
	// ErrUnsupported: a valid Substrait construct the planner does not handle
	// (the message names it: "plan: unsupported relation: WindowRel").
	ErrUnsupported = errkind.New(errkind.Unsupported, "plan: unsupported")
	// ErrInvalidPlan: a malformed plan (bad field reference, bad detail, type
	// mismatch, substrait-go rejecting or panicking on it).
	ErrInvalidPlan = errkind.Category(errkind.InvalidArgument, "plan: invalid plan")
	// ErrUnknownTable: the catalog has no table of that name. A Catalog should
	// wrap it (or its own sentinel, which Build passes through).
	ErrUnknownTable = errkind.Category(errkind.NotFound, "plan: unknown table")
	// ErrMissingParam: a dynamic parameter the plan uses is not bound in
	// TaskContext.Params at execution.
	ErrMissingParam = errkind.New(errkind.InvalidArgument, "plan: parameter not bound")
	// ErrParamType: a bound parameter's Go type does not fit its use.
	ErrParamType = errkind.New(errkind.InvalidArgument, "plan: parameter of wrong type")
	// ErrOutOfRange: a value does not fit the type an expression converts
	// it to (a row id beyond bigint, a double beyond bigint).
	ErrOutOfRange = errkind.New(errkind.OutOfRange, "plan: value out of range")
	// ErrInternal: a bug in the planner (a recovered panic, a broken
	// invariant). The message never carries the panic's text; the panic
	// and its stack go to the debug log (log/slog at level Debug).
	ErrInternal = errkind.New(errkind.Internal, "plan: internal error")
	// ErrDecoderPanic: substrait-go panicked decoding the plan. The plan is
	// malformed (the error also matches ErrInvalidPlan), and the panic is a
	// bug in the decoder, so the error matches errkind.Internal too. Every
	// class known is refused before the decoder runs (validate, checkTypes):
	// one that still gets through is a bug FuzzSubstrait fails on.
	ErrDecoderPanic = errkind.New(errkind.Internal, "substrait-go panicked decoding it")
)

// recovered logs a recovered panic with its stack at level Debug and
// returns the error that replaces it: kind, then what was being done.
func recovered(r any, kind error, doing string) error {
	slog.Debug("stablerow: recovered panic", "during", doing, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	return fmt.Errorf("%w: %s (the panic is in the debug log)", kind, doing)
}
