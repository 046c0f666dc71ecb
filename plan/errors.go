package plan

import (
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
	ErrInvalidPlan = errkind.New(errkind.InvalidArgument, "plan: invalid plan")
	// ErrUnknownTable: the catalog has no table of that name. A Catalog should
	// wrap it (or its own sentinel, which Build passes through).
	ErrUnknownTable = errkind.New(errkind.NotFound, "plan: unknown table")
	// ErrMissingParam: a dynamic parameter the plan uses is not bound in
	// TaskContext.Params at execution.
	ErrMissingParam = errkind.New(errkind.InvalidArgument, "plan: parameter not bound")
	// ErrParamType: a bound parameter's Go type does not fit its use.
	ErrParamType = errkind.New(errkind.InvalidArgument, "plan: parameter of wrong type")
)
