package errkind

import (
	"errors"
	"fmt"
	"testing"
)

func TestSentinelMatchesItsKindAndItself(t *testing.T) {
	own := New(Corrupt, "pkg: corrupt thing")
	other := New(Corrupt, "other: corrupt thing")
	err := fmt.Errorf("open %s: %w", "f", fmt.Errorf("block 3: %w", own))
	if !errors.Is(err, own) || !errors.Is(err, Corrupt) {
		t.Fatalf("wrapped sentinel lost its identity or kind: %v", err)
	}
	if errors.Is(err, other) {
		t.Fatal("a sentinel matched another package's sentinel of the same kind")
	}
	if errors.Is(err, Conflict) {
		t.Fatal("a corrupt error matched Conflict")
	}
	if Of(err) != Corrupt || Of(errors.New("plain")) != nil {
		t.Fatalf("Of: %v", Of(err))
	}
	if own.Error() != "pkg: corrupt thing" {
		t.Fatalf("message changed: %q", own.Error())
	}
}
