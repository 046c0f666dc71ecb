package access

import (
	"context"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/index/btree"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/fragreuse"
)

// Resolver answers for one index in one snapshot. It implements KeyIndex
// (what TakeByKeyExec sees, and what a Resolution composes) and is
// immutable.
type Resolver struct {
	meta    *table.IndexMeta
	ix      *btree.Index
	hist    *fragreuse.History // nil: the index is current
	derived *roaring.Bitmap    // coverage derived through hist (nil with it)
	cov     *Coverage
	version uint64
}

var _ KeyIndex = (*Resolver)(nil)

func newResolver(t *table.Table, m *table.IndexMeta, ix *btree.Index, h *fragreuse.History, derived *roaring.Bitmap) *Resolver {
	return &Resolver{meta: m, ix: ix, hist: h, derived: derived, cov: NewCoverage(t, m, derived), version: t.Version()}
}

// Meta is the index record.
func (r *Resolver) Meta() *table.IndexMeta { return r.meta }

// Coverage is the index's coverage in the snapshot.
func (r *Resolver) Coverage() *Coverage { return r.cov }

// Remapper translates the index's addresses to current ones, or is nil
// when no rewrite happened since the build (the plan then has no
// RowAddrRemapExec).
func (r *Resolver) Remapper() Remapper {
	if r.hist == nil {
		return nil
	}
	return r.hist
}

// Probe implements KeyIndex.
func (r *Resolver) Probe(ctx context.Context, keys arrow.Array) (*ProbeResult, error) {
	var res *btree.LookupResult
	var err error
	if u, ok := keys.(*array.Uint64); ok && u.NullN() == 0 {
		res, err = r.ix.LookupUint64(ctx, u.Uint64Values())
	} else {
		res, err = r.ix.Lookup(ctx, keys)
	}
	if err != nil {
		return nil, err
	}
	return &ProbeResult{Addrs: res.Addrs, Found: res.Found, Multi: res.Multi, PagesDecoded: res.PagesDecoded}, nil
}

// ProbeAll implements KeyIndex.
func (r *Resolver) ProbeAll(ctx context.Context, keys arrow.Array, i int) ([]uint64, error) {
	one := array.NewSlice(keys, int64(i), int64(i+1))
	defer one.Release()
	bm, err := r.ix.SearchIn(ctx, one)
	if err != nil {
		return nil, err
	}
	return bm.ToArray(), nil
}

// Valid implements KeyIndex: Coverage.Valid.
func (r *Resolver) Valid(addrs []uint64, ok []bool) { r.cov.Valid(addrs, ok) }

// Uncovered implements KeyIndex: Coverage.Uncovered.
func (r *Resolver) Uncovered() []uint32 { return r.cov.Uncovered() }

// SearchIn returns the valid current addresses of the rows whose key is
// one of keys (set semantics, for IndexScanExec): searched in the index,
// translated through the history, kept when Valid.
func (r *Resolver) SearchIn(ctx context.Context, keys arrow.Array) ([]uint64, error) {
	bm, err := r.ix.SearchIn(ctx, keys)
	if err != nil {
		return nil, err
	}
	return r.live(bm.ToArray())
}

// live translates addresses the index answered through the history and
// keeps those valid in this snapshot.
func (r *Resolver) live(addrs []uint64) ([]uint64, error) {
	ok := make([]bool, len(addrs))
	if r.hist != nil {
		if err := r.hist.Translate(addrs, addrs, ok); err != nil {
			return nil, err
		}
	}
	valid := make([]bool, len(addrs))
	r.cov.Valid(addrs, valid)
	out := addrs[:0]
	for i, a := range addrs {
		if valid[i] && (r.hist == nil || ok[i]) {
			out = append(out, a)
		}
	}
	return out, nil
}

// Transitions is the number of rewrites the history translates through.
func (r *Resolver) Transitions() int {
	if r.hist == nil {
		return 0
	}
	return r.hist.Len()
}

// String implements KeyIndex.
func (r *Resolver) String() string {
	n := uint64(0)
	if r.meta.Fragments != nil {
		n = r.meta.Fragments.GetCardinality()
	}
	fragments := func(n uint64) string {
		if n == 1 {
			return "1 fragment"
		}
		return fmt.Sprintf("%d fragments", n)
	}
	s := fmt.Sprintf("btree %s(%s) built at v%d covering %s", r.meta.Name, r.meta.Column, r.meta.DatasetVersion, fragments(n))
	if r.hist != nil {
		s += ", derived coverage " + fragments(r.derived.GetCardinality())
	}
	return s
}
