package access

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/index/btree"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/fragreuse"
	"github.com/stablerow/stablerow/table/store"
)

// ErrIndex is the kind of every index failure this package reports
// (opening, building, remapping, unknown index names).
var ErrIndex = errkind.New(errkind.InvalidArgument, "access: index")

// ErrIndexExists is CREATE INDEX of a name the table already has (the
// engine's IF NOT EXISTS tests for it).
var ErrIndexExists = errkind.New(errkind.InvalidArgument, "access: index already exists")

// DefaultMaxResolvers bounds the cache of per-snapshot resolvers (their
// coverage and fragment reuse history).
const DefaultMaxResolvers = 64

// Layer opens indexes once and caches, per index, the resolver of the
// newest snapshot asked for: a resolver of an older version is evicted
// when a newer one is built, and at most MaxResolvers are kept. Safe for
// concurrent use.
type Layer struct {
	mem          memory.Allocator
	maxResolvers int
	workers      atomic.Int32 // index build tasks run at once (SetWorkers)

	mu  sync.Mutex
	idx map[string]*btree.Index // open indexes by store identity + prefix
	res map[string]*Resolver    // newest resolver per index (store identity + prefix)
	use map[string]uint64       // LRU clock per res entry
	clk uint64
}

// New returns a layer allocating through mem (nil: memory.DefaultAllocator).
func New(mem memory.Allocator) *Layer {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	return &Layer{mem: mem, maxResolvers: DefaultMaxResolvers, idx: map[string]*btree.Index{},
		res: map[string]*Resolver{}, use: map[string]uint64{}}
}

func indexKey(st store.Store, prefix string) string { return fmt.Sprintf("%p/%s", st, prefix) }

// Find returns the BTree index on column in snapshot t (a unique one when
// unique is set), or nil: an index whose whole key is that column (in
// either order), which answers probes and IN lists of the column's values.
func Find(t *table.Table, column string, unique bool) *table.IndexMeta {
	for _, m := range t.Indexes() {
		if m.Column == column && len(m.Keys) <= 1 && m.Kind == "btree" && (m.Unique || !unique) {
			return m
		}
	}
	return nil
}

// Open returns the open BTree of an index record (opened once).
func (l *Layer) Open(ctx context.Context, t *table.Table, m *table.IndexMeta) (*btree.Index, error) {
	key := indexKey(t.Store(), m.Prefix)
	l.mu.Lock()
	ix, ok := l.idx[key]
	l.mu.Unlock()
	if ok {
		return ix, nil
	}
	ix, err := btree.Open(ctx, t.Store(), m.Prefix, btree.Options{Mem: l.mem})
	if err != nil {
		return nil, fmt.Errorf("%w: open %s: %w", ErrIndex, m.Name, err)
	}
	l.mu.Lock()
	if prev, ok := l.idx[key]; ok {
		ix = prev
	} else {
		l.idx[key] = ix
	}
	l.mu.Unlock()
	return ix, nil
}

func (l *Layer) remember(st store.Store, prefix string, ix *btree.Index) {
	l.mu.Lock()
	l.idx[indexKey(st, prefix)] = ix
	l.mu.Unlock()
}

// Resolver returns the resolver of index m in snapshot t: the open BTree,
// the fragment reuse history it needs (nil when no rewrite happened since
// its build) and its coverage. Built once per (index, snapshot version).
func (l *Layer) Resolver(ctx context.Context, t *table.Table, m *table.IndexMeta) (*Resolver, error) {
	key := indexKey(t.Store(), m.Prefix)
	l.mu.Lock()
	r, ok := l.res[key]
	if ok && r.version == t.Version() {
		l.clk++
		l.use[key] = l.clk
		l.mu.Unlock()
		return r, nil
	}
	l.mu.Unlock()
	ix, err := l.Open(ctx, t, m)
	if err != nil {
		return nil, err
	}
	h, derived, err := historyFor(ctx, t, m)
	if err != nil {
		return nil, err
	}
	r = newResolver(t, m, ix, h, derived)
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur, ok := l.res[key]; ok && cur.version >= r.version {
		// Built concurrently, or an older snapshot asked late: keep the
		// newest cached and hand this one out uncached.
		if cur.version == r.version {
			return cur, nil
		}
		return r, nil
	}
	l.clk++
	l.res[key], l.use[key] = r, l.clk
	if len(l.res) > l.maxResolvers {
		l.evictLocked()
	}
	return r, nil
}

// evictLocked drops the least recently used resolver. Histories are not
// closed: a plan may still hold the resolver, and their rowmaps are
// memory-mapped or in memory, so the garbage collector reclaims them.
func (l *Layer) evictLocked() {
	var oldest string
	first := true
	for k, c := range l.use {
		if first || c < l.use[oldest] {
			oldest, first = k, false
		}
	}
	delete(l.res, oldest)
	delete(l.use, oldest)
}

// Cached is the number of resolvers held (for tests).
func (l *Layer) Cached() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.res)
}

// historyFor returns the fragment reuse history index m needs in snapshot
// t and the coverage it derives through it (table.DerivedCoverage limited
// to t's fragments), or nils when no rewrite happened since its build.
func historyFor(ctx context.Context, t *table.Table, m *table.IndexMeta) (*fragreuse.History, *roaring.Bitmap, error) {
	ts, err := t.History()
	if err != nil {
		return nil, nil, err
	}
	pending := false
	for _, tr := range ts {
		if tr.Version > m.DatasetVersion {
			pending = true
			break
		}
	}
	if !pending {
		return nil, nil, nil
	}
	h, err := fragreuse.Open(ctx, t.Store(), ts, m.DatasetVersion)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: history of %s: %w", ErrIndex, m.Name, err)
	}
	derived := table.DerivedCoverage(m, ts)
	derived.And(roaring.BitmapOf(t.FragmentIDs()...))
	return h, derived, nil
}
