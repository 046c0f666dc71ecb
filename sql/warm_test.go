package sql

import (
	"testing"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// TestWarm: Warm builds the collection the lowering then uses (the same
// one, not a copy), and calling it again, or alongside a lowering, is
// harmless (meant for -race).
func TestWarm(t *testing.T) {
	done := make(chan error)
	go func() { done <- Warm() }()
	c, err := substraitfn.Collection()
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := Warm(); err != nil {
		t.Fatal(err)
	}
	again, err := substraitfn.Collection()
	if err != nil || again != c {
		t.Fatalf("Collection after Warm: %p, %v; want the one built once, %p", again, err, c)
	}
	if !c.URNLoaded(substraitfn.URNComparison) {
		t.Fatalf("the warmed collection lacks %s", substraitfn.URNComparison)
	}
}
