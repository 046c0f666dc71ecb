package access

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/index/btree"
	"github.com/stablerow/stablerow/table"
)

// ErrUniqueViolation is two live rows with equal keys (none NULL) in a
// unique index: PostgreSQL's unique_violation (SQLSTATE 23505). It is a
// statement error; when the key's other row was committed by a concurrent
// writer after this one read the table, the error is table.ErrConflict too.
var ErrUniqueViolation = errkind.New(errkind.InvalidArgument, "duplicate key value violates unique constraint")

// btreeKeys converts an index's key columns to the BTree's (nil stays nil).
func btreeKeys(keys []table.IndexKey) []btree.KeyPart {
	if keys == nil {
		return nil
	}
	out := make([]btree.KeyPart, len(keys))
	for i, k := range keys {
		out[i] = btree.KeyPart{Column: k.Column, Desc: k.Desc, NullsFirst: k.NullsFirst}
	}
	return out
}

// checkUnique refuses a new unique index over rows with a duplicate key,
// as PostgreSQL's CREATE UNIQUE INDEX does (_bt_load's uniqueness check
// through the spool's sort, comparing neighbours): the entries are in key
// order, so equal keys are adjacent; keys with a NULL never conflict
// (NULLS DISTINCT). The build read only live rows.
func checkUnique(ctx context.Context, ix *btree.Index, plan *IndexBuildPlan) error {
	dup, err := ix.HasDuplicate(ctx)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrIndex, plan.Name, err)
	}
	if dup {
		return fmt.Errorf("%w: could not create unique index %q: a key is duplicated", ErrUniqueViolation, plan.Name)
	}
	return nil
}

// CompositeKeys are the rows of cols (the index's key columns, in key
// order) as the composite index's keys (btree.CompositeKeys), with null[i]
// set for a row with a NULL key column, which conflicts with no row.
func CompositeKeys(m *table.IndexMeta, cols []arrow.Array) (keys []string, null []bool, err error) {
	parts := btreeKeys(m.KeyColumns())
	return btree.CompositeKeys(parts, cols)
}
