package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/stablerow/stablerow/access"
)

// OptimizeIndex brings an index up to date in one commit
// (access.Layer.OptimizeIndex): every pending rewrite composed into one
// remap, deleted rows dropped, uncovered fragments added, history no index
// needs any more trimmed.
func (db *DB) OptimizeIndex(ctx context.Context, tableName, indexName string) error {
	t, err := db.Table(ctx, tableName)
	if err != nil {
		return err
	}
	if t.Index(indexName) == nil {
		return fmt.Errorf("%w: no index %q on %s", ErrIndex, indexName, tableName)
	}
	_, err = db.acc.OptimizeIndex(ctx, t, indexName)
	return indexErr(err)
}

// indexErr marks the access layer's index failures as ErrIndex too.
func indexErr(err error) error {
	if err != nil && errors.Is(err, access.ErrIndex) && !errors.Is(err, ErrIndex) {
		return fmt.Errorf("%w: %w", ErrIndex, err)
	}
	return err
}
