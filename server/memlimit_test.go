package server

import (
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/stablerow/stablerow/exec/memlimit"
)

// TestMemoryLimitCode: a statement over its memory limit reaches a Flight
// SQL client as RESOURCE_EXHAUSTED, whatever layers wrapped it.
func TestMemoryLimitCode(t *testing.T) {
	err := fmt.Errorf("statement 1: sort: %w", fmt.Errorf("%w: SortExec needs 1MB", memlimit.ErrResourceExhausted))
	if c := codeOf(err); c != codes.ResourceExhausted {
		t.Fatalf("code %s, want ResourceExhausted", c)
	}
}
