package sql

import (
	"fmt"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// Warm builds, once per process, what the first statement otherwise builds
// on first use: the extension collection every lowering and every plan
// resolves function URNs against (18 standard files, each declared through
// substrait-go's YAML loader, ~0.3-0.5 ms). A caller with time to spare
// calls it off its critical path: `stablerow sql` does, on a goroutine of
// its own while it parses flags and opens the database. Safe for
// concurrent use. Its error is the one the first statement would report.
func Warm() error {
	if _, err := substraitfn.Collection(); err != nil {
		return fmt.Errorf("%w: %w", ErrInternal, err)
	}
	return nil
}
