package access

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

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

// Holds reports, per key of keys (the index's probe keys: the column's
// values, or a composite index's encoded keys), whether a row live in
// this snapshot holds it among the fragments the index covers (rows of
// the others are the caller's to scan: Uncovered). NULL keys hold nothing.
func (r *Resolver) Holds(ctx context.Context, keys arrow.Array) ([]bool, error) {
	res, err := r.Probe(ctx, keys)
	if err != nil {
		return nil, err
	}
	multi := map[int]bool{}
	for _, i := range res.Multi {
		multi[i] = true
	}
	out := make([]bool, keys.Len())
	for i := range out {
		if !res.Found[i] {
			continue
		}
		addrs := []uint64{res.Addrs[i]}
		if multi[i] {
			if addrs, err = r.ProbeAll(ctx, keys, i); err != nil {
				return nil, err
			}
		}
		live, err := r.live(addrs)
		if err != nil {
			return nil, err
		}
		out[i] = len(live) > 0
	}
	return out, nil
}
