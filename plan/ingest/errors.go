package ingest

import (
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/stablerow/stablerow/errkind"
)

// The sentinels of a plan that ingest refuses. They are owned here, the
// lowest package that raises them, and plan re-exports each under the
// same name (plan.ErrInvalidPlan is ingest.ErrInvalidPlan), so a caller's
// errors.Is(err, plan.ErrInvalidPlan) matches whichever phase refused the
// plan. Their messages keep the "plan:" prefix: to the producer, it is the
// plan that is refused, whatever phase found it.
var (
	// ErrUnsupported: a valid Substrait construct the planner does not handle
	// (the message names it: "plan: unsupported relation: WindowRel").
	ErrUnsupported = errkind.New(errkind.Unsupported, "plan: unsupported")
	// ErrInvalidPlan: a malformed plan (bad field reference, bad detail, type
	// mismatch, substrait-go rejecting or panicking on it).
	ErrInvalidPlan = errkind.Category(errkind.InvalidArgument, "plan: invalid plan")
	// ErrDecoderPanic: substrait-go panicked decoding the plan. The plan is
	// malformed (the error also matches ErrInvalidPlan), and the panic is a
	// bug in the decoder, so the error matches errkind.Internal too. Every
	// class known is refused before the decoder runs (Validate, Read's type
	// check): one that still gets through is a bug FuzzSubstrait fails on.
	ErrDecoderPanic = errkind.New(errkind.Internal, "substrait-go panicked decoding it")
)

// Unsupported is ErrUnsupported naming the kind of construct ("relation",
// "expression", "function"): "plan: unsupported relation: ...".
func Unsupported(kind string) error { return fmt.Errorf("%w %s", ErrUnsupported, kind) }

// Recovered logs a recovered panic with its stack at level Debug and
// returns the error that replaces it: kind, then what was being done. The
// message never carries the panic's text (it may hold the plan's data).
func Recovered(r any, kind error, doing string) error {
	slog.Debug("stablerow: recovered panic", "during", doing, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	return fmt.Errorf("%w: %s (the panic is in the debug log)", kind, doing)
}
