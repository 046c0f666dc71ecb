package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/table"
)

// Vacuum compacts a table (order-preserving: small and deletion-heavy
// adjacent fragments merge, row ids kept). Index remaps are deferred: the
// rewrite joins the fragment reuse history and indexes keep answering
// through it until Reindex.
func (db *DB) Vacuum(ctx context.Context, name string) error {
	t, err := db.Table(ctx, name)
	if err != nil {
		return err
	}
	_, err = t.Compact(ctx, table.CompactOptions{DeferIndexRemap: true, Mem: db.mem()})
	return err
}

// Cluster reorders a table by the column of one of its indexes (a stable
// partition into destination fragments, recorded as a rowmap), with the
// index remap deferred.
func (db *DB) Cluster(ctx context.Context, name, index string) error {
	t, err := db.Table(ctx, name)
	if err != nil {
		return err
	}
	m := t.Index(index)
	if m == nil {
		return fmt.Errorf("%w: no index %q on %s", ErrIndex, index, name)
	}
	per := uint64(1 << 20)
	if opt := db.opt.Table.MaxRowsPerFragment; opt > 0 {
		per = uint64(opt)
	}
	dests := int((t.LiveRows() + per - 1) / per)
	dests = max(dests, min(4, int(t.LiveRows())))
	if dests < 1 {
		return nil // nothing to reorder
	}
	_, err = t.Recluster(ctx, m.Column, table.ReclusterOptions{Destinations: dests, DeferIndexRemap: true, Mem: db.mem()})
	return err
}

// Reindex optimizes one index (by name, searched in every table) or every
// index of a table.
func (db *DB) Reindex(ctx context.Context, tableName, index string) error {
	if tableName != "" {
		t, err := db.Table(ctx, tableName)
		if err != nil {
			return err
		}
		for _, m := range t.Indexes() {
			if err := db.OptimizeIndex(ctx, tableName, m.Name); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range db.Tables() {
		t, err := db.Table(ctx, name)
		if err != nil {
			return err
		}
		for _, m := range t.Indexes() {
			if strings.EqualFold(m.Name, index) {
				return db.OptimizeIndex(ctx, name, m.Name)
			}
		}
	}
	return fmt.Errorf("%w: no index %q", ErrIndex, index)
}
