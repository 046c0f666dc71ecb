package engine

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/index/btree"
	"github.com/stablerow/stablerow/index/fragreuse"
	"github.com/stablerow/stablerow/table"
)

// historyFor returns the fragment reuse history an index needs in snapshot
// t (nil when no rewrite happened since the index was built). Histories are
// opened once per (table version, index).
func (db *DB) historyFor(ctx context.Context, t *table.Table, m *table.IndexMeta) (*fragreuse.History, error) {
	ts, err := t.History()
	if err != nil {
		return nil, err
	}
	pending := false
	for _, tr := range ts {
		if tr.Version > m.DatasetVersion {
			pending = true
			break
		}
	}
	if !pending {
		return nil, nil
	}
	key := fmt.Sprintf("%s@v%d", indexKey(t.Store(), m.Prefix), t.Version())
	db.mu.Lock()
	h, ok := db.hist[key]
	db.mu.Unlock()
	if ok {
		return h, nil
	}
	h, err = fragreuse.ForIndex(ctx, t, m)
	if err != nil {
		return nil, fmt.Errorf("%w: history of %s: %w", ErrIndex, m.Name, err)
	}
	db.mu.Lock()
	if prev, ok := db.hist[key]; ok {
		db.mu.Unlock()
		h.Close()
		return prev, nil
	}
	db.hist[key] = h
	db.mu.Unlock()
	return h, nil
}

// derivedIndex is an index whose build predates rewrites: TakeByKeyExec
// translates its answers through the fragment reuse history (a
// RowAddrRemapExec over the probe in the plan), and it covers what the
// history derives (an index covering all sources of a rewrite covers its
// destinations).
type derivedIndex struct {
	keyIndex
	h *fragreuse.History
}

func (r *derivedIndex) Covers(f uint32) bool { return r.h.Coverage().Contains(f) }

func (r *derivedIndex) String() string {
	return fmt.Sprintf("%s, derived coverage %d fragments", r.keyIndex.String(), r.h.Coverage().GetCardinality())
}

// OptimizeIndex brings an index up to date in one commit: every pending
// rewrite is composed into one remap of its addresses (not one rebuild per
// rewrite), entries of deleted rows are dropped, rows of fragments it does
// not cover are added, and the page lookup is rebuilt. Afterwards history
// no index needs any more is trimmed.
func (db *DB) OptimizeIndex(ctx context.Context, tableName, indexName string) error {
	t, err := db.Table(ctx, tableName)
	if err != nil {
		return err
	}
	m := t.Index(indexName)
	if m == nil {
		return fmt.Errorf("%w: no index %q on %s", ErrIndex, indexName, tableName)
	}
	ix, err := db.openIndex(ctx, t, m)
	if err != nil {
		return err
	}
	h, err := db.historyFor(ctx, t, m)
	if err != nil {
		return err
	}
	covered := m.Fragments.Clone()
	if h != nil {
		covered = h.Coverage().Clone()
	}
	translate := func(in, out []uint64, live []bool) error {
		if h != nil {
			if err := h.Translate(in, out, live); err != nil {
				return err
			}
		} else {
			copy(out, in)
			for i := range live {
				live[i] = true
			}
		}
		for i := range live {
			live[i] = live[i] && t.IsLive(out[i])
		}
		return nil
	}
	var keep []uint32
	for _, id := range t.FragmentIDs() {
		if covered.Contains(id) {
			keep = append(keep, id)
		}
	}
	mem := db.mem()
	prefix := "_indices/" + newID() + "/"
	next, err := ix.Remap(ctx, t.Store(), prefix, translate, keep, t.Version(), btreeOptions(mem))
	if err != nil {
		return fmt.Errorf("%w: remap %s: %w", ErrIndex, indexName, err)
	}
	var add []uint32
	for _, id := range t.FragmentIDs() {
		if !covered.Contains(id) {
			add = append(add, id)
		}
	}
	if len(add) > 0 {
		rdr, err := t.ScanColumns(ctx, []string{m.Column, table.RowAddr}, add, mem)
		if err != nil {
			return err
		}
		prefix = "_indices/" + newID() + "/"
		next, err = next.Update(ctx, t.Store(), prefix, rdr, add, t.Version(), btreeOptions(mem))
		rdr.Release()
		if err != nil {
			return fmt.Errorf("%w: update %s: %w", ErrIndex, indexName, err)
		}
	}
	meta := &table.IndexMeta{Name: m.Name, Column: m.Column, Kind: m.Kind, Prefix: prefix,
		Fragments: bitmapOf(t.FragmentIDs()), DatasetVersion: t.Version(), Unique: m.Unique}
	nt, err := t.CommitIndex(ctx, meta, true)
	if err != nil {
		return err
	}
	db.mu.Lock()
	db.idx[indexKey(t.Store(), meta.Prefix)] = next
	db.mu.Unlock()
	_, err = nt.TrimHistory(ctx)
	return err
}

func btreeOptions(mem memory.Allocator) btree.Options { return btree.Options{Mem: mem} }
