package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

// ErrNoArbiter: ON CONFLICT names columns no unique index has as its key,
// or a constraint the table does not have (PostgreSQL's 42P10 and 42704).
var ErrNoArbiter = errkind.New(errkind.InvalidArgument, "engine: no unique index for ON CONFLICT")

// arbiter is one unique index ON CONFLICT DO NOTHING checks, with the keys
// it has seen: those of the rows the table held when the statement
// started that the index does not cover, and those of the rows the
// statement keeps.
type arbiter struct {
	m    *table.IndexMeta
	cols []int // the key columns' positions in the table's user columns
	r    *access.Resolver
	seen map[string]bool
}

// conflictFilter drops the rows of INSERT ... ON CONFLICT DO NOTHING whose
// key in an arbiter index a row already holds (PostgreSQL's
// ExecOnConflict... path: ExecCheckIndexConstraints before the insert,
// the row skipped on a conflict). A row with a NULL key column conflicts
// with nothing. Rows a concurrent writer commits after the statement's
// snapshot are not skipped: the commit's unique check (unique.go) then
// refuses the statement as a conflict.
type conflictFilter struct {
	db   *DB
	arbs []*arbiter
}

// newConflictFilter finds the arbiters of oc on snapshot t
// (inferArbiters) and the keys of the rows their indexes do not cover.
func (db *DB) newConflictFilter(ctx context.Context, t *table.Table, name string, oc *sql.OnConflict) (*conflictFilter, error) {
	ms, err := inferArbiters(t, name, oc)
	if err != nil {
		return nil, err
	}
	f := &conflictFilter{db: db}
	for _, m := range ms {
		a := &arbiter{m: m, seen: map[string]bool{}}
		for _, k := range m.KeyColumns() {
			a.cols = append(a.cols, t.ColumnIndex(k.Column))
		}
		uncovered := t.FragmentIDs()
		if !t.IsStaged() {
			// A transaction's staged snapshot has a private version
			// that no resolver may be cached under: it scans every
			// fragment.
			r, err := db.acc.Resolver(ctx, t, m)
			if err != nil {
				return nil, indexErr(err)
			}
			a.r, uncovered = r, r.Uncovered()
		}
		if len(uncovered) > 0 {
			cols := make([]string, len(a.cols))
			for i, c := range a.cols {
				cols[i] = t.Schema().Field(c).Name
			}
			err := scanKeys(ctx, db, t, m, cols, uncovered, func(keys []string, null []bool, _ arrow.RecordBatch) error {
				for i, k := range keys {
					if !null[i] {
						a.seen[k] = true
					}
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		f.arbs = append(f.arbs, a)
	}
	return f, nil
}

// inferArbiters finds the arbiter indexes of oc on snapshot t (DO
// NOTHING's and DO UPDATE's), as infer_arbiter_indexes does: the unique
// index whose key columns are exactly oc.Columns (any order), the one
// named oc.Constraint, or every unique index.
func inferArbiters(t *table.Table, name string, oc *sql.OnConflict) ([]*table.IndexMeta, error) {
	var ms []*table.IndexMeta
	for _, m := range t.Indexes() {
		if !m.Unique || m.Column == table.RowID && m.Keys == nil {
			continue
		}
		switch {
		case oc.Constraint != "":
			if m.Name != oc.Constraint {
				continue
			}
		case oc.Columns != nil:
			var cols []string
			for _, k := range m.KeyColumns() {
				cols = append(cols, k.Column)
			}
			a, b := slices.Sorted(slices.Values(cols)), slices.Sorted(slices.Values(oc.Columns))
			if !slices.Equal(slices.Compact(a), slices.Compact(b)) {
				continue
			}
		}
		ms = append(ms, m)
	}
	switch {
	case len(ms) == 0 && oc.Constraint != "":
		return nil, fmt.Errorf("%w: constraint %q for table %q does not exist", ErrNoArbiter, oc.Constraint, name)
	case len(ms) == 0 && oc.Columns != nil:
		return nil, fmt.Errorf("%w: there is no unique or exclusion constraint matching the ON CONFLICT specification", ErrNoArbiter)
	}
	return ms, nil
}

// filter returns the rows of b (the table's user columns) to insert: b
// itself (retained) when all are, nil when none is.
func (f *conflictFilter) filter(ctx context.Context, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := int(b.NumRows())
	skip := make([]bool, n)
	keys := make([][]string, len(f.arbs))
	nulls := make([][]bool, len(f.arbs))
	for j, a := range f.arbs {
		cols := make([]arrow.Array, len(a.cols))
		for i, c := range a.cols {
			cols[i] = b.Column(c)
		}
		var err error
		if keys[j], nulls[j], err = access.CompositeKeys(a.m, cols); err != nil {
			return nil, indexErr(err)
		}
		if a.r == nil {
			continue
		}
		held, err := f.held(ctx, a, cols, keys[j], nulls[j])
		if err != nil {
			return nil, err
		}
		for i := range skip {
			skip[i] = skip[i] || held[i]
		}
	}
	var keep []int32
	for i := 0; i < n; i++ {
		for j, a := range f.arbs {
			if !skip[i] && !nulls[j][i] && a.seen[keys[j][i]] {
				skip[i] = true
			}
		}
		if skip[i] {
			continue
		}
		for j, a := range f.arbs {
			if !nulls[j][i] {
				a.seen[keys[j][i]] = true
			}
		}
		keep = append(keep, int32(i))
	}
	switch len(keep) {
	case 0:
		return nil, nil
	case n:
		b.Retain()
		return b, nil
	}
	return physexpr.TakeRows(ctx, f.db.mem(), b, keep)
}

// held says which rows' keys a row of the fragments a's index covers
// holds (the resolver: addresses translated, dead rows dropped).
func (f *conflictFilter) held(ctx context.Context, a *arbiter, cols []arrow.Array, keys []string, null []bool) ([]bool, error) {
	if a.m.Keys == nil {
		h, err := a.r.Holds(ctx, cols[0]) // NULLs hold nothing
		return h, indexErr(err)
	}
	bb := array.NewBinaryBuilder(f.db.mem(), arrow.BinaryTypes.Binary)
	defer bb.Release()
	for i, k := range keys {
		if null[i] {
			bb.AppendNull()
		} else {
			bb.AppendString(k)
		}
	}
	ka := bb.NewArray()
	defer ka.Release()
	h, err := a.r.Holds(ctx, ka)
	return h, indexErr(err)
}
