package btree

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table/store"
)

// DefaultPageRows is the page size used when Options.PageRows is 0.
const DefaultPageRows = 4096

// Options tune building and reading. The zero value is usable.
type Options struct {
	// PageRows is the number of entries per page when building
	// (default DefaultPageRows, at most 1<<20).
	PageRows int
	// Cache holds decoded pages; nil means DefaultCache.
	Cache *PageCache
	// Mem allocates the Arrow data of scans (TrainFrom); nil means a Go allocator.
	Mem memory.Allocator
}

func (o Options) pageRows() (int, error) {
	switch {
	case o.PageRows == 0:
		return DefaultPageRows, nil
	case o.PageRows < 0 || o.PageRows > maxPageRows:
		return 0, fmt.Errorf("%w: PageRows %d not in [1, %d]", ErrInvalidArgument, o.PageRows, maxPageRows)
	}
	return o.PageRows, nil
}

func (o Options) cache() *PageCache {
	if o.Cache != nil {
		return o.Cache
	}
	return DefaultCache
}

func (o Options) mem() memory.Allocator {
	if o.Mem != nil {
		return o.Mem
	}
	return memory.NewGoAllocator()
}

// Meta is what an index records about the data it was built from.
type Meta struct {
	// Column is the indexed column's name.
	Column string
	// FragmentIDs are the fragments the index covers (its fragment bitmap),
	// ascending; a fragment outside it must be answered by a scan.
	FragmentIDs []uint32
	// DatasetVersion is the table version the index was built or updated at.
	DatasetVersion uint64
	// Keys are a composite index's columns (Column is the first), nil for
	// a one-column index.
	Keys []KeyPart
}

func (m Meta) clone() Meta {
	m.FragmentIDs = slices.Clone(m.FragmentIDs)
	m.Keys = slices.Clone(m.Keys)
	slices.Sort(m.FragmentIDs)
	m.FragmentIDs = slices.Compact(m.FragmentIDs)
	return m
}

// Index is an opened BTree index. Its lookup is resident; pages are read on
// demand through the page cache. An Index is immutable and safe for
// concurrent use.
type Index struct {
	st         store.Store
	pagesPath  string
	lookupSize int64
	lk         *lookup
	cache      *PageCache
	id         uint64
}

var nextIndexID atomic.Uint64

// Open reads the lookup of the index under prefix. Pages are read later,
// on demand.
func Open(ctx context.Context, st store.Store, prefix string, opt Options) (*Index, error) {
	lb, err := st.Get(ctx, prefix+lookupName)
	if err != nil {
		return nil, fileErr(prefix+lookupName, "open", err)
	}
	size, err := st.Size(ctx, prefix+pagesName)
	if err != nil {
		return nil, fileErr(prefix+pagesName, "open", err)
	}
	lk, err := decodeLookup(lb, size)
	if err != nil {
		return nil, fmt.Errorf("btree: index file %s: %w", prefix+lookupName, err)
	}
	hb, err := st.GetRange(ctx, prefix+pagesName, 0, headerSize)
	if err != nil {
		return nil, fileErr(prefix+pagesName, "open", err)
	}
	kind, version, err := checkHeader(hb, filePages)
	if err != nil {
		return nil, fmt.Errorf("btree: index file %s: %w", prefix+pagesName, err)
	}
	if kind != lk.kind || version != lk.version() {
		return nil, corruptf("index files %s and %s disagree: pages key kind %d version %d, lookup %d version %d", prefix+pagesName, prefix+lookupName, kind, version, lk.kind, lk.version())
	}
	return newIndex(st, prefix, lk, int64(len(lb)), opt), nil
}

// fileErr wraps a store error on an index file. A file that is not there
// is also ErrCorrupt naming it: an index a version records has lost a
// file (store.ErrNotFound stays in the chain for callers probing a
// prefix).
func fileErr(path, op string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: index file %s is missing (%s: %w)", ErrCorrupt, path, op, err)
	}
	return fmt.Errorf("btree: %s %s: %w", op, path, err)
}

func newIndex(st store.Store, prefix string, lk *lookup, lookupSize int64, opt Options) *Index {
	return &Index{st: st, pagesPath: prefix + pagesName, lookupSize: lookupSize, lk: lk, cache: opt.cache(), id: nextIndexID.Add(1)}
}

// Meta returns what the index records about its data.
func (ix *Index) Meta() Meta { return ix.lk.meta.clone() }

// KeyType returns the Arrow type of the keys; decimal(38, 0) for a
// numeric index, whose files do not record the column's precision and
// scale.
func (ix *Index) KeyType() arrow.DataType { return ix.lk.kind.dataType() }

// Stats describes an index's size.
type Stats struct {
	Rows, Pages int
	// DiskBytes is the size of both files.
	DiskBytes int64
	// ResidentBytes is what the opened index keeps in memory (the lookup),
	// not counting cached pages.
	ResidentBytes int64
}

// Stats returns the index's size figures.
func (ix *Index) Stats() Stats {
	lk := ix.lk
	res := int64(256) + int64(len(lk.pages))*24 + int64(len(lk.umin)+len(lk.umax))*8 + int64(len(lk.smin)+len(lk.smax))*16
	for i := range lk.smin {
		res += int64(len(lk.smin[i]) + len(lk.smax[i]))
	}
	res += int64(len(lk.meta.Column)) + 4*int64(len(lk.meta.FragmentIDs))
	return Stats{Rows: int(lk.rows), Pages: len(lk.pages), DiskBytes: lk.pagesSize + ix.lookupSize, ResidentBytes: res}
}

// loadPages returns the pages listed (ascending, distinct), reading the
// cache misses with one range read per run of adjacent pages, and how many
// it had to read and decode.
func (ix *Index) loadPages(ctx context.Context, idx []int) (out []*page, decoded int, err error) {
	out = make([]*page, len(idx))
	for j := 0; j < len(idx); {
		if out[j] = ix.cache.get(cacheKey{ix.id, idx[j]}); out[j] != nil {
			j++
			continue
		}
		// Extend the run of misses over adjacent pages.
		k := j + 1
		for k < len(idx) && idx[k] == idx[k-1]+1 && k-j < 1024 {
			if p := ix.cache.get(cacheKey{ix.id, idx[k]}); p != nil {
				out[k] = p
				break
			}
			k++
		}
		first, last := ix.lk.pages[idx[j]], ix.lk.pages[idx[k-1]]
		n := last.off + int64(last.length) - first.off
		b, err := ix.st.GetRange(ctx, ix.pagesPath, first.off, n)
		if err != nil {
			return nil, decoded, fileErr(ix.pagesPath, fmt.Sprintf("read pages %d..%d", idx[j], idx[k-1]), err)
		}
		for m := j; m < k; m++ {
			ref := ix.lk.pages[idx[m]]
			// Copy, so a cached page does not pin the whole run's buffer.
			pb := slices.Clone(b[ref.off-first.off : ref.off-first.off+int64(ref.length)])
			if out[m], err = ix.admit(idx[m], pb); err != nil {
				return nil, decoded, err
			}
			decoded++
		}
		j = k
	}
	return out, decoded, nil
}

// admit verifies and decodes page i's bytes and caches the result. Its
// errors name the pages file.
func (ix *Index) admit(i int, b []byte) (_ *page, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("btree: index file %s: %w", ix.pagesPath, err)
		}
	}()
	ref := ix.lk.pages[i]
	if crc(b) != ref.crc {
		return nil, corruptf("page %d checksum mismatch", i)
	}
	p, err := decodePage(b)
	if err != nil {
		return nil, fmt.Errorf("page %d: %w", i, err)
	}
	if err := ix.checkPage(i, p); err != nil {
		return nil, err
	}
	ix.cache.put(cacheKey{ix.id, i}, p)
	return p, nil
}

// checkPage cross-checks a decoded page against its lookup entry.
func (ix *Index) checkPage(i int, p *page) error {
	lk := ix.lk
	ref := lk.pages[i]
	want := uint8(pageInt)
	switch {
	case i < lk.nullPages:
		want = pageNull
	case lk.kind.stringy():
		want = pageString
	}
	if p.kind != want || p.n != int(ref.rows) {
		return corruptf("page %d does not match the lookup", i)
	}
	switch p.kind {
	case pageInt:
		if p.ukeys.at(0) != lk.umin[i] || p.ukeys.at(p.n-1) != lk.umax[i] {
			return corruptf("page %d key bounds do not match the lookup", i)
		}
	case pageString:
		if p.skeys[0] != lk.smin[i] || p.skeys[p.n-1] != lk.smax[i] {
			return corruptf("page %d key bounds do not match the lookup", i)
		}
	}
	return nil
}
