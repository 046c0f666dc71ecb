package btree

import (
	"context"
	"fmt"
	"slices"

	"github.com/stablerow/stablerow/table/store"
)

// Merge writes under prefix one index holding the entries of runs: indexes
// of one key kind built separately (over disjoint fragment groups, by
// parallel build tasks, or a remapped index next to the runs of the
// fragments it did not cover). Every run is already in (key, address)
// order, so the runs are merged pairwise, never re-sorted. The result
// records meta (its fragments and version are the caller's: the union the
// runs cover); page rows default to the first run's.
func Merge(ctx context.Context, st store.Store, prefix string, runs []*Index, meta Meta, opt Options) (*Index, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: merge of no runs", ErrInvalidArgument)
	}
	kind := runs[0].lk.kind
	es := make([]*entries, len(runs))
	for i, r := range runs {
		if r.lk.kind != kind {
			return nil, fmt.Errorf("%w: merge of %s and %s keys", ErrInvalidArgument, kind.dataType(), r.lk.kind.dataType())
		}
		if !slices.Equal(r.lk.parts, runs[0].lk.parts) {
			return nil, fmt.Errorf("%w: merge of runs with other key columns", ErrInvalidArgument)
		}
		if r.lk.meta.Column != meta.Column {
			return nil, fmt.Errorf("%w: run on column %q merged into an index on %q", ErrInvalidArgument, r.lk.meta.Column, meta.Column)
		}
		e, err := r.readEntries(ctx)
		if err != nil {
			return nil, err
		}
		es[i] = e
	}
	// Merge neighbours pairwise, so each entry is copied log2(runs) times.
	for len(es) > 1 {
		next := es[:0:0]
		for i := 0; i < len(es); i += 2 {
			if i+1 == len(es) {
				next = append(next, es[i])
				continue
			}
			next = append(next, mergeEntries(es[i], es[i+1]))
		}
		es = next
	}
	if opt.PageRows == 0 {
		opt.PageRows = runs[0].lk.pageRows
	}
	return es[0].write(ctx, st, prefix, meta, opt)
}
