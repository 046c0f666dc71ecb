package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/table"
)

// ErrUniqueViolation: a write would give two live rows equal keys (no
// NULL among them) in a unique index: PostgreSQL's unique_violation,
// 'duplicate key value violates unique constraint "name"'. When the other
// row was committed by a concurrent writer after this one read the table,
// the error is table.ErrConflict too.
var ErrUniqueViolation = access.ErrUniqueViolation

// checkUnique is the tables' CommitCheck (table.Options): the rows a commit
// adds (next's fragments latest lacks) must not repeat a key among
// themselves or hold a key of latest's live rows, in every unique index
// but the one on _rowid. PostgreSQL checks each inserted tuple against the
// index at insertion (_bt_check_unique); here the rows are checked as one
// set when the commit is applied, and again when it rebases over a
// concurrent commit, so of two writers that together would repeat a key
// the second to commit fails. latest's rows are found through the index's
// resolver (the fragments it covers, rewrites translated, dead rows
// dropped) and a scan of the fragments it does not cover.
func (db *DB) checkUnique(ctx context.Context, latest, next *table.Table, rebased bool) error {
	if !slices.ContainsFunc(next.Indexes(), checked) {
		return nil
	}
	var added []uint32
	for _, f := range next.Fragments() {
		if latest.Manifest().Fragment(f.ID) == nil {
			added = append(added, f.ID)
		}
	}
	if len(added) == 0 {
		return nil
	}
	for _, m := range next.Indexes() {
		if !checked(m) {
			continue
		}
		if err := db.checkUniqueIndex(ctx, latest, next, m, added, rebased); err != nil {
			return err
		}
	}
	return nil
}

// checked: a unique index whose uniqueness is not by construction (the
// index on _rowid alone).
func checked(m *table.IndexMeta) bool {
	return m.Unique && (m.Column != table.RowID || len(m.Keys) > 0)
}

func (db *DB) checkUniqueIndex(ctx context.Context, latest, next *table.Table, m *table.IndexMeta, added []uint32, rebased bool) error {
	violation := func(concurrent bool) error {
		if concurrent {
			return fmt.Errorf("%w %q (%w: a concurrent writer committed the key first)", ErrUniqueViolation, m.Name, table.ErrConflict)
		}
		return fmt.Errorf("%w %q", ErrUniqueViolation, m.Name)
	}
	cols := make([]string, len(m.KeyColumns()))
	for i, k := range m.KeyColumns() {
		cols[i] = k.Column
	}
	// The added rows' keys, each once.
	fresh := map[string]bool{}
	var probe [][]arrow.Array // per batch, the key columns of rows without NULLs
	defer func() {
		for _, b := range probe {
			releaseArrays(b)
		}
	}()
	err := scanKeys(ctx, db, next, m, cols, added, func(keys []string, null []bool, b arrow.RecordBatch) error {
		for i, k := range keys {
			if null[i] {
				continue
			}
			if fresh[k] {
				return violation(false)
			}
			fresh[k] = true
		}
		arrs := make([]arrow.Array, b.NumCols())
		for j := range arrs {
			arrs[j] = b.Column(j)
			arrs[j].Retain()
		}
		probe = append(probe, arrs)
		return nil
	})
	if err != nil || len(fresh) == 0 {
		return err
	}
	// latest's rows: those the index covers, through its resolver.
	r, err := db.acc.Resolver(ctx, latest, latest.Index(m.Name))
	if err != nil {
		return indexErr(err)
	}
	for _, arrs := range probe {
		hit, err := db.probeUnique(ctx, next, m, r, arrs)
		if err != nil {
			return err
		}
		if hit {
			return violation(rebased)
		}
	}
	// ... and the rows of fragments it does not cover, as next has them
	// (an update deletes the rows it rewrites).
	if unc := r.Uncovered(); len(unc) > 0 {
		err = scanKeys(ctx, db, next, m, cols, unc, func(keys []string, null []bool, _ arrow.RecordBatch) error {
			for i, k := range keys {
				if !null[i] && fresh[k] {
					return violation(rebased)
				}
			}
			return nil
		})
	}
	return err
}

// probeUnique reports whether the index (r: its resolver in the version
// the commit is applied on) holds a row still live in next with one of the
// keys of arrs (key columns of rows, NULL rows included: they match
// nothing). A row the commit deletes (an update's old row) is no conflict.
func (db *DB) probeUnique(ctx context.Context, next *table.Table, m *table.IndexMeta, r *access.Resolver, arrs []arrow.Array) (bool, error) {
	liveIn := func(addrs []uint64, err error) (bool, error) {
		if err != nil {
			return false, indexErr(err)
		}
		for _, a := range addrs {
			if f := next.Manifest().Fragment(uint32(a >> 32)); f != nil && f.IsLive(uint32(a)) {
				return true, nil
			}
		}
		return false, nil
	}
	if m.Keys == nil {
		return liveIn(r.SearchIn(ctx, arrs[0])) // NULL values match nothing
	}
	keys, null, err := access.CompositeKeys(m, arrs)
	if err != nil {
		return false, indexErr(err)
	}
	b := array.NewBinaryBuilder(db.mem(), arrow.BinaryTypes.Binary)
	defer b.Release()
	for i, k := range keys {
		if !null[i] { // a key with a NULL column equals no key
			b.AppendString(k)
		}
	}
	if b.Len() == 0 {
		return false, nil
	}
	ka := b.NewArray()
	defer ka.Release()
	return liveIn(r.SearchIn(ctx, ka))
}

// scanKeys calls fn with the canonical keys (access.CompositeKeys) of the
// rows of t's fragments frags, batch by batch, and the batch of key
// columns they came from.
func scanKeys(ctx context.Context, db *DB, t *table.Table, m *table.IndexMeta, cols []string, frags []uint32, fn func(keys []string, null []bool, b arrow.RecordBatch) error) error {
	rdr, err := t.ScanColumns(ctx, cols, frags, db.mem())
	if err != nil {
		return err
	}
	defer rdr.Release()
	for rdr.Next() {
		b := rdr.RecordBatch()
		keys, null, err := access.CompositeKeys(m, b.Columns())
		if err != nil {
			return indexErr(err)
		}
		if err := fn(keys, null, b); err != nil {
			return err
		}
	}
	return rdr.Err()
}
