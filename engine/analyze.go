package engine

import (
	"context"

	"github.com/stablerow/stablerow/sql"
)

// Analyze rebuilds the statistics of table name (every table when name
// is ""): each fragment's zone map and distinct-count sketches, committed
// as a version of its own (table.Analyze), so the planner's estimates
// come from the live rows (PostgreSQL's ANALYZE). A table written before
// sketches has none until then, and the estimator falls back to guesses.
func (db *DB) Analyze(ctx context.Context, name string) error {
	names := []string{name}
	if name == "" {
		names = db.Tables()
	}
	for _, n := range names {
		t, err := db.Table(ctx, n)
		if err != nil {
			return err
		}
		if _, err := t.Analyze(ctx, db.mem()); err != nil {
			return err
		}
	}
	return nil
}

// analyze runs ANALYZE [t, ...].
func (db *DB) analyze(ctx context.Context, s *sql.Analyze) error {
	if len(s.Tables) == 0 {
		return db.Analyze(ctx, "")
	}
	for _, n := range s.Tables {
		if err := db.Analyze(ctx, n); err != nil {
			return err
		}
	}
	return nil
}
