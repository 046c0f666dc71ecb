package plan

import (
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/plan/ingest"
)

// Sentinels; errors are wrapped with fmt.Errorf("plan: ...: %w", ErrX) so
// callers can use errors.Is. ErrUnsupported, ErrInvalidPlan and
// ErrDecoderPanic are the Substrait ingest's (plan/ingest owns them, as
// the phase that raises them first); they are the same values here.
var (
	// ErrUnsupported: a valid Substrait construct the planner does not handle
	// (the message names it: "plan: unsupported relation: WindowRel").
	ErrUnsupported = ingest.ErrUnsupported
	// ErrInvalidPlan: a malformed plan (bad field reference, bad detail, type
	// mismatch, substrait-go rejecting or panicking on it).
	ErrInvalidPlan = ingest.ErrInvalidPlan
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
	// ErrDecoderPanic: substrait-go panicked decoding the plan (also
	// ErrInvalidPlan and errkind.Internal; see ingest.ErrDecoderPanic).
	ErrDecoderPanic = ingest.ErrDecoderPanic
)

// recovered is ingest.Recovered: the panic to the debug log, an error of
// kind in its place.
func recovered(r any, kind error, doing string) error { return ingest.Recovered(r, kind, doing) }
