package optimize

import (
	"fmt"
	"strings"
)

// PathError is Decorrelate's refusal of a subquery: what is wrong, at
// the path of the relation or expression in the plan
// ("root.input.filter: condition.arguments[1]"), spelled as the
// Substrait ingest's validation spells its own paths. It stays
// structured so that the caller reports it in its own error kinds (plan:
// ErrUnsupported for Kind != "", ErrInvalidPlan for Kind == "").
type PathError struct {
	Kind string // what is unsupported ("expression"); "" for a malformed plan
	Path string
	Msg  string
}

func (e *PathError) Error() string {
	if e.Kind == "" {
		return fmt.Sprintf("invalid plan: %s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("unsupported %s: %s at %s", e.Kind, e.Msg, e.Path)
}

// invalidAt and unsupportedAt make the errors of Decorrelate.
func invalidAt(path, format string, args ...any) error {
	return &PathError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

func unsupportedAt(kind, path, format string, args ...any) error {
	return &PathError{Kind: kind, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// bad and unsup make a PathError whose path the caller knows (place).
func bad(format string, args ...any) error { return invalidAt("", format, args...) }

func unsup(kind, format string, args ...any) error { return unsupportedAt(kind, "", format, args...) }

// place gives a PathError made without a path the path it was found at.
func place(err error, path string) error {
	if pe, ok := err.(*PathError); ok && pe.Path == "" {
		pe.Path = path
	}
	return err
}

// relKind names a proto relation type as the spec does ("WindowRel").
func relKind(t any) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", t), "*substraitpb.Rel_") + "Rel"
}
