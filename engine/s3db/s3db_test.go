package s3db

import (
	"errors"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store"
)

// TestOptionsOfAnotherType: engine.Options.S3 holding anything but an
// s3store.Options is a typed error before any request, not a panic.
func TestOptionsOfAnotherType(t *testing.T) {
	_, err := engine.Open("s3://stablerow-none/db", engine.Options{S3: 42})
	if !errors.Is(err, errOptions) || errkind.Of(err) != errkind.InvalidArgument {
		t.Fatalf("Options.S3 = 42: %v, want errOptions (InvalidArgument)", err)
	}
}

// TestSubOfAnotherStore: sub refuses a store this scheme did not open.
func TestSubOfAnotherStore(t *testing.T) {
	if _, err := sub(store.NewMemory(), "t"); !errors.Is(err, store.ErrInvalidArgument) {
		t.Fatalf("sub of a memory store: %v, want store.ErrInvalidArgument", err)
	}
}
