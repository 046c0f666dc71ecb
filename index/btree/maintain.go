package btree

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/table/store"
)

// readChunk is how many pages Update and Remap read per store request.
const readChunk = 256

// forEachPage calls fn with every page in order, nulls first.
func (ix *Index) forEachPage(ctx context.Context, fn func(i int, pg *page) error) error {
	n := len(ix.lk.pages)
	idx := make([]int, 0, readChunk)
	for lo := 0; lo < n; lo += readChunk {
		idx = idx[:0]
		for i := lo; i < min(lo+readChunk, n); i++ {
			idx = append(idx, i)
		}
		pages, _, err := ix.loadPages(ctx, idx)
		if err != nil {
			return err
		}
		for j, pg := range pages {
			if err := fn(idx[j], pg); err != nil {
				return err
			}
		}
	}
	return nil
}

// readEntries decodes the whole index, already in (key, address) order.
func (ix *Index) readEntries(ctx context.Context) (*entries, error) {
	e := newEntries(ix.lk.kind, ix.lk.parts)
	e.addrs = make([]uint64, 0, ix.lk.rows)
	err := ix.forEachPage(ctx, func(i int, pg *page) error {
		start := len(e.addrs)
		e.addrs = pg.appendAddrs(e.addrs)
		switch pg.kind {
		case pageNull:
			e.nulls = append(e.nulls, e.addrs[start:]...)
			e.addrs = e.addrs[:start]
		case pageInt:
			e.ukeys = pg.ukeys.appendTo(e.ukeys)
		case pageString:
			e.skeys = append(e.skeys, pg.skeys...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Update writes a new index under prefix holding this index's entries and
// those of src (batches as for Train, from the fragments addFragments).
// The old entries are merged, never re-sorted; only src is sorted, and only
// when it is not already in order. The result covers the union of the
// fragments and records version.
func (ix *Index) Update(ctx context.Context, st store.Store, prefix string, src array.RecordReader, addFragments []uint32, version uint64, opt Options) (*Index, error) {
	add := newEntries(ix.lk.kind, ix.lk.parts)
	if err := add.addReader(ctx, src); err != nil {
		return nil, err
	}
	add.sort()
	old, err := ix.readEntries(ctx)
	if err != nil {
		return nil, err
	}
	merged := mergeEntries(old, add)
	meta := ix.Meta()
	meta.FragmentIDs = append(meta.FragmentIDs, addFragments...)
	meta.DatasetVersion = version
	if opt.PageRows == 0 {
		opt.PageRows = ix.lk.pageRows
	}
	return merged.write(ctx, st, prefix, meta, opt)
}

// mergeEntries merges two sorted entry sets.
func mergeEntries(a, b *entries) *entries {
	out := newEntries(a.kind, a.parts)
	out.nulls = mergeSorted(a.nulls, b.nulls)
	n := a.len() + b.len()
	out.addrs = make([]uint64, 0, n)
	if a.kind.stringy() {
		out.skeys = make([]string, 0, n)
		out.skeys, out.addrs = mergeKeyed(a.skeys, a.addrs, b.skeys, b.addrs, out.skeys, out.addrs)
	} else {
		out.ukeys = make([]uint64, 0, n)
		out.ukeys, out.addrs = mergeKeyed(a.ukeys, a.addrs, b.ukeys, b.addrs, out.ukeys, out.addrs)
	}
	return out
}

func mergeKeyed[K cmp.Ordered](ak []K, aa []uint64, bk []K, ba []uint64, ok []K, oa []uint64) ([]K, []uint64) {
	i, j := 0, 0
	for i < len(ak) && j < len(bk) {
		if c := cmp.Compare(ak[i], bk[j]); c < 0 || c == 0 && aa[i] <= ba[j] {
			ok, oa = append(ok, ak[i]), append(oa, aa[i])
			i++
		} else {
			ok, oa = append(ok, bk[j]), append(oa, ba[j])
			j++
		}
	}
	ok, oa = append(ok, ak[i:]...), append(oa, aa[i:]...)
	ok, oa = append(ok, bk[j:]...), append(oa, ba[j:]...)
	return ok, oa
}

func mergeSorted(a, b []uint64) []uint64 {
	out := make([]uint64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return append(append(out, a[i:]...), b[j:]...)
}

// Remap writes a new index under prefix whose addresses went through
// translate. translate gets a batch of old addresses and fills out with the
// new ones and live with false for rows that no longer exist; those are
// dropped. Keys do not change, so pages stay in key order, but addresses
// are re-sorted within equal keys, the pages are re-split and the page
// lookup is rebuilt from the new pages (copying the old lookup is Lance's
// bug #5826). The result covers newFragments (nil: the old list) and
// records version.
func (ix *Index) Remap(ctx context.Context, st store.Store, prefix string, translate func(in []uint64, out []uint64, live []bool) error, newFragments []uint32, version uint64, opt Options) (*Index, error) {
	if translate == nil {
		return nil, fmt.Errorf("%w: nil translate", ErrInvalidArgument)
	}
	e, err := ix.readEntries(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]uint64, readChunk*ix.lk.pageRows)
	live := make([]bool, len(out))
	// Translate in batches, compacting survivors in place.
	remap := func(addrs []uint64, keep func(src, dst int)) (int, error) {
		w := 0
		for lo := 0; lo < len(addrs); lo += len(out) {
			hi := min(lo+len(out), len(addrs))
			o, l := out[:hi-lo], live[:hi-lo]
			clear(l)
			if err := translate(addrs[lo:hi], o, l); err != nil {
				return 0, fmt.Errorf("btree: remap: %w", err)
			}
			for k := range o {
				if l[k] {
					keep(lo+k, w)
					addrs[w] = o[k]
					w++
				}
			}
		}
		return w, nil
	}
	n, err := remap(e.nulls, func(int, int) {})
	if err != nil {
		return nil, err
	}
	e.nulls = e.nulls[:n]
	slices.Sort(e.nulls)
	switch {
	case e.kind.stringy():
		n, err = remap(e.addrs, func(s, d int) { e.skeys[d] = e.skeys[s] })
		e.skeys = e.skeys[:n]
		e.addrs = e.addrs[:n]
		sortRuns(e.skeys, e.addrs)
	default:
		n, err = remap(e.addrs, func(s, d int) { e.ukeys[d] = e.ukeys[s] })
		e.ukeys = e.ukeys[:n]
		e.addrs = e.addrs[:n]
		sortRuns(e.ukeys, e.addrs)
	}
	if err != nil {
		return nil, err
	}
	meta := ix.Meta()
	if newFragments != nil {
		meta.FragmentIDs = newFragments
	}
	meta.DatasetVersion = version
	if opt.PageRows == 0 {
		opt.PageRows = ix.lk.pageRows
	}
	return e.write(ctx, st, prefix, meta, opt)
}

// sortRuns restores address order within each run of equal keys.
func sortRuns[K cmp.Ordered](keys []K, addrs []uint64) {
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		if j-i > 1 {
			slices.Sort(addrs[i:j])
		}
		i = j
	}
}
