package errkind

import "errors"

// Kind is one shared failure kind. It is itself an error so it can be the
// target of errors.Is.
type Kind struct{ name string }

func (k *Kind) Error() string { return k.name }

// The kinds.
var (
	// Corrupt: stored bytes fail their format checks (magic, version,
	// checksum, bounds, identity). The data on disk is wrong; retrying will
	// not help.
	Corrupt = &Kind{"corrupt data"}
	// Conflict: a concurrent commit won; the operation may be retried.
	Conflict = &Kind{"conflict"}
	// InvalidArgument: the caller's input (SQL, plan, parameter, option) is
	// wrong; nothing was changed.
	InvalidArgument = &Kind{"invalid argument"}
	// OutOfRange: a value does not fit its type (integer overflow, a cast
	// that would lose the value). PostgreSQL's "out of range" errors.
	OutOfRange = &Kind{"value out of range"}
	// NotFound: a named table, index, version or file does not exist.
	NotFound = &Kind{"not found"}
	// Unsupported: valid input this engine does not implement.
	Unsupported = &Kind{"unsupported"}
	// PermissionDenied: the caller may not do this here (a file path
	// outside the directory a server allows, or file access refused).
	PermissionDenied = &Kind{"permission denied"}
	// Unavailable: a store or service stablerow depends on could not be
	// reached, or kept failing through its retries (an S3 endpoint that is
	// down, refuses connections or answers 5xx). Nothing is wrong with the
	// input or the data; the same call may succeed later.
	Unavailable = &Kind{"unavailable"}
	// Internal: a bug in stablerow (a recovered panic, a broken invariant).
	Internal = &Kind{"internal error"}
)

// sentinel is a package's own error that also matches its kind.
type sentinel struct {
	msg  string
	kind *Kind
	// category: the text only sorts the error ("sql: type error"); the
	// message after it says what happened, so Message drops it.
	category bool
}

func (e *sentinel) Error() string { return e.msg }

// Is reports whether target is this sentinel's kind (identity with the
// sentinel itself is checked by errors.Is before Is is called).
func (e *sentinel) Is(target error) bool { return target == e.kind }

// New returns a sentinel error with message msg that matches kind under
// errors.Is.
func New(kind *Kind, msg string) error { return &sentinel{msg: msg, kind: kind} }

// Category is New for a sentinel whose text only sorts the errors that
// wrap it ("sql: type error", "sql: unknown column"): each of them says
// what happened after it, so Message leaves the category out.
func Category(kind *Kind, msg string) error {
	return &sentinel{msg: msg, kind: kind, category: true}
}

// Of returns the kind err matches, or nil.
func Of(err error) *Kind {
	for _, k := range all {
		if errors.Is(err, k) {
			return k
		}
	}
	return nil
}

var all = []*Kind{Corrupt, Conflict, OutOfRange, InvalidArgument, NotFound, Unsupported, PermissionDenied, Unavailable, Internal}
