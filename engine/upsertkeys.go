package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/table"
)

// The keys INSERT ... ON CONFLICT DO UPDATE finds its conflicts by
// (upsert.go).

// upsertArbiter is one arbiter index and the keys the statement knows.
type upsertArbiter struct {
	m    *table.IndexMeta
	cols []string          // its key columns
	r    *access.Resolver  // nil: held has every snapshot row's key
	held map[string]uint64 // key -> the snapshot row holding it (address)
	// mine are the keys of the rows this statement inserted or updated,
	// which no later proposed row may update (21000).
	mine map[string]bool
}

// newUpsertArbiter finds the snapshot's rows for index m: the fragments
// its resolver does not cover are scanned now, the others searched by
// the proposed keys batch by batch (lookup). A transaction's staged
// view has no resolver (its version is private): it is scanned whole, as
// ON CONFLICT DO NOTHING does.
func (db *DB) newUpsertArbiter(ctx context.Context, t *table.Table, m *table.IndexMeta) (*upsertArbiter, error) {
	a := &upsertArbiter{m: m, held: map[string]uint64{}, mine: map[string]bool{}}
	for _, k := range m.KeyColumns() {
		a.cols = append(a.cols, k.Column)
	}
	uncovered := t.FragmentIDs()
	if !t.IsStaged() {
		r, err := db.acc.Resolver(ctx, t, m)
		if err != nil {
			return nil, indexErr(err)
		}
		a.r, uncovered = r, r.Uncovered()
	}
	if len(uncovered) == 0 {
		return a, nil
	}
	rdr, err := t.ScanColumns(ctx, append(append([]string(nil), a.cols...), table.RowAddr), uncovered, db.mem())
	if err != nil {
		return nil, err
	}
	defer rdr.Release()
	for rdr.Next() {
		b := rdr.RecordBatch()
		k := len(a.cols)
		a.hold(b.Columns()[:k], b.Column(k).(*array.Uint64).Uint64Values())
	}
	return a, rdr.Err()
}

// hold records the keys of rows (their key columns) at addrs.
func (a *upsertArbiter) hold(cols []arrow.Array, addrs []uint64) error {
	keys, null, err := access.CompositeKeys(a.m, cols)
	if err != nil {
		return indexErr(err)
	}
	for i, k := range keys {
		if !null[i] {
			a.held[k] = addrs[i]
		}
	}
	return nil
}

// lookup searches the index for the snapshot rows holding the keys of
// cols (key columns of some rows; keys and null are theirs) that are not
// known yet, and records them.
func (a *upsertArbiter) lookup(ctx context.Context, db *DB, t *table.Table, cols []arrow.Array, keys []string, null []bool) error {
	if a.r == nil {
		return nil
	}
	var probe arrow.Array
	if a.m.Keys == nil {
		probe = cols[0] // NULLs match nothing
		probe.Retain()
	} else {
		bb := array.NewBinaryBuilder(db.mem(), arrow.BinaryTypes.Binary)
		for i, k := range keys {
			if _, ok := a.held[k]; !null[i] && !ok {
				bb.AppendString(k)
			}
		}
		probe = bb.NewArray()
		bb.Release()
	}
	defer probe.Release()
	if probe.Len() == probe.NullN() {
		return nil
	}
	addrs, err := a.r.SearchIn(ctx, probe)
	if err != nil {
		return indexErr(err)
	}
	live := addrs[:0]
	for _, ad := range addrs {
		if t.IsLive(ad) {
			live = append(live, ad)
		}
	}
	if len(live) == 0 {
		return nil
	}
	b, err := t.Take(ctx, live, nil, a.cols, db.mem())
	if err != nil {
		return err
	}
	defer b.Release()
	return a.hold(b.Columns(), live)
}

// keysOf are the arbiters' keys of b's rows (b: the table's user columns
// in order, then maybe more), looked up in the snapshot.
func (u *upserter) keysOf(ctx context.Context, b arrow.RecordBatch, first int) ([][]string, [][]bool, error) {
	keys := make([][]string, len(u.arbs))
	nulls := make([][]bool, len(u.arbs))
	for j, a := range u.arbs {
		cols := make([]arrow.Array, len(a.cols))
		for i, c := range a.cols {
			cols[i] = b.Column(first + u.base.ColumnIndex(c))
		}
		var err error
		if keys[j], nulls[j], err = access.CompositeKeys(a.m, cols); err != nil {
			return nil, nil, indexErr(err)
		}
		if err := a.lookup(ctx, u.db, u.base, cols, keys[j], nulls[j]); err != nil {
			return nil, nil, err
		}
	}
	return keys, nulls, nil
}
