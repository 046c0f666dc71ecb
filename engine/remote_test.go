package engine

import (
	"errors"
	"testing"

	"github.com/stablerow/stablerow/errkind"
)

// TestRemoteSchemeNotRegistered: a scheme no imported package registered
// is a typed error naming the package to import, not a panic or a path.
func TestRemoteSchemeNotRegistered(t *testing.T) {
	_, _, err := openRemoteRoot(t.Context(), "gs", "gs://b/db", Options{})
	if !errors.Is(err, ErrNoRemoteStore) || errkind.Of(err) != errkind.InvalidArgument {
		t.Fatalf("unregistered scheme: %v, want ErrNoRemoteStore (InvalidArgument)", err)
	}
}
