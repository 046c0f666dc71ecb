package access

import (
	"context"
	"fmt"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/stablerow/stablerow/index/btree"
	"github.com/stablerow/stablerow/table"
)

// CreateIndex builds a BTree on column (any orderable column, _rowid
// included) over every fragment of snapshot t and records it in the
// manifest; name "" picks <table>_<column>_idx from tableName. An index on
// _rowid is unique by construction and serves TakeByKeyExec.
func (l *Layer) CreateIndex(ctx context.Context, t *table.Table, tableName, name, column string) (*table.Table, error) {
	ci := t.ColumnIndex(column)
	if ci < 0 {
		return nil, fmt.Errorf("%w: table %s has no column %q", ErrIndex, tableName, column)
	}
	column = t.Schema().Field(ci).Name
	if name == "" {
		name = tableName + "_" + strings.TrimPrefix(column, "_") + "_idx"
	}
	if t.Index(name) != nil {
		return nil, fmt.Errorf("%w: %w: %q on %s", ErrIndex, ErrIndexExists, name, tableName)
	}
	prefix := "_indices/" + table.NewID() + "/"
	ix, err := btree.TrainFrom(ctx, t.Store(), prefix, t, column, btree.Options{Mem: l.mem})
	if err != nil {
		return nil, fmt.Errorf("%w: build %s: %w", ErrIndex, name, err)
	}
	meta := &table.IndexMeta{Name: name, Column: column, Kind: "btree", Prefix: prefix,
		Fragments: roaring.BitmapOf(ix.Meta().FragmentIDs...), DatasetVersion: t.Version(), Unique: column == table.RowID}
	nt, err := t.CommitIndex(ctx, meta, false)
	if err != nil {
		return nil, err
	}
	l.remember(t.Store(), prefix, ix)
	return nt, nil
}

// OptimizeIndex brings index name of snapshot t up to date in one commit:
// every pending rewrite is composed into one remap of its addresses (not
// one rebuild per rewrite), entries of deleted rows are dropped, rows of
// fragments it does not cover are added, and the page lookup is rebuilt.
// Afterwards history no index needs any more is trimmed.
func (l *Layer) OptimizeIndex(ctx context.Context, t *table.Table, name string) (*table.Table, error) {
	m := t.Index(name)
	if m == nil {
		return nil, fmt.Errorf("%w: no index %q", ErrIndex, name)
	}
	r, err := l.Resolver(ctx, t, m)
	if err != nil {
		return nil, err
	}
	cov := r.Coverage()
	translate := func(in, out []uint64, live []bool) error {
		if r.hist != nil {
			if err := r.hist.Translate(in, out, live); err != nil {
				return err
			}
		} else {
			copy(out, in)
			for i := range live {
				live[i] = true
			}
		}
		ok := make([]bool, len(live))
		cov.Valid(out[:len(live)], ok)
		for i := range live {
			live[i] = live[i] && ok[i]
		}
		return nil
	}
	var keep, add []uint32
	for _, id := range t.FragmentIDs() {
		if cov.Fragment(id) != NotCovered {
			keep = append(keep, id)
		} else {
			add = append(add, id)
		}
	}
	opt := btree.Options{Mem: l.mem}
	prefix := "_indices/" + table.NewID() + "/"
	next, err := r.ix.Remap(ctx, t.Store(), prefix, translate, keep, t.Version(), opt)
	if err != nil {
		return nil, fmt.Errorf("%w: remap %s: %w", ErrIndex, name, err)
	}
	if len(add) > 0 {
		rdr, err := t.ScanColumns(ctx, []string{m.Column, table.RowAddr}, add, l.mem)
		if err != nil {
			return nil, err
		}
		prefix = "_indices/" + table.NewID() + "/"
		next, err = next.Update(ctx, t.Store(), prefix, rdr, add, t.Version(), opt)
		rdr.Release()
		if err != nil {
			return nil, fmt.Errorf("%w: update %s: %w", ErrIndex, name, err)
		}
	}
	meta := &table.IndexMeta{Name: m.Name, Column: m.Column, Kind: m.Kind, Prefix: prefix,
		Fragments: roaring.BitmapOf(t.FragmentIDs()...), DatasetVersion: t.Version(), Unique: m.Unique}
	nt, err := t.CommitIndex(ctx, meta, true)
	if err != nil {
		return nil, err
	}
	l.remember(t.Store(), meta.Prefix, next)
	return nt.TrimHistory(ctx)
}
