package access

import (
	"context"

	"github.com/stablerow/stablerow/index/btree"
)

// SearchPrefix returns the live addresses, in this snapshot, of the rows
// the index holds whose first len(eq) key columns equal eq and whose next
// key column lies in rng (btree.Index.SearchPrefix), translated through
// the fragment reuse history as SearchIn's. Rows of uncovered fragments
// are the caller's to scan (Uncovered).
func (r *Resolver) SearchPrefix(ctx context.Context, eq []any, rng *btree.Range) ([]uint64, error) {
	bm, err := r.ix.SearchPrefix(ctx, eq, rng)
	if err != nil {
		return nil, err
	}
	return r.live(bm.ToArray())
}

// Keys returns the index's key columns (one for a one-column index).
func (r *Resolver) Keys() []btree.KeyPart {
	if k := r.ix.Keys(); k != nil {
		return k
	}
	return []btree.KeyPart{{Column: r.meta.Column}}
}
