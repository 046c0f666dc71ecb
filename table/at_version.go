package table

import "context"

// AtVersion returns the snapshot of t's table at version v, opened with
// t's options (t itself when it is that version). Task executors use it to
// read exactly the version a plan read.
func (t *Table) AtVersion(ctx context.Context, v uint64) (*Table, error) {
	return t.atVersion(ctx, v)
}
