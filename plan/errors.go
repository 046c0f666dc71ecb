package plan

import "errors"

// Sentinels; errors are wrapped with fmt.Errorf("plan: ...: %w", ErrX) so
// callers can use errors.Is.
var (
	// ErrUnsupported: a valid Substrait construct the planner does not handle
	// (the message names it: "plan: unsupported relation: WindowRel").
	ErrUnsupported = errors.New("plan: unsupported")
	// ErrInvalidPlan: a malformed plan (bad field reference, bad detail, type
	// mismatch, substrait-go rejecting or panicking on it).
	ErrInvalidPlan = errors.New("plan: invalid plan")
	// ErrUnknownTable: the catalog has no table of that name. A Catalog should
	// wrap it (or its own sentinel, which Build passes through).
	ErrUnknownTable = errors.New("plan: unknown table")
	// ErrMissingParam: a dynamic parameter the plan uses is not bound in
	// TaskContext.Params at execution.
	ErrMissingParam = errors.New("plan: parameter not bound")
	// ErrParamType: a bound parameter's Go type does not fit its use.
	ErrParamType = errors.New("plan: parameter of wrong type")
)
