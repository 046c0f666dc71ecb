package table

import (
	"context"
	"slices"
)

// DropIndex commits a version without the index called name (DROP INDEX),
// ErrNotFound when the latest version has none. The index's files stay for
// the older versions that name them; VACUUM removes them with those
// versions. A concurrent commit of the same index (an optimize, a rebuild)
// conflicts as two index commits do (commutes).
func (t *Table) DropIndex(ctx context.Context, name string) (*Table, error) {
	if t.Index(name) == nil {
		return nil, errorf(ErrNotFound, "index %q does not exist", name)
	}
	drop := func(_, next *Manifest) error {
		i := slices.IndexFunc(next.Indexes, func(ix *IndexMeta) bool { return ix.Name == name })
		if i < 0 {
			return errorf(ErrNotFound, "index %q does not exist", name)
		}
		next.Indexes = slices.Delete(slices.Clone(next.Indexes), i, i+1)
		return nil
	}
	return t.commit(ctx, &txn{kind: "index", base: t.m, detail: name, mutate: drop})
}
