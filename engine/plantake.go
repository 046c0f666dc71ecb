package engine

import (
	"context"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/table"
)

// PlanTake resolves ids to their live rows in snapshot t (one the caller
// got from DB.Table) and splits them by fragment into take tasks
// (access.Layer.PlanTake), through the engine's own access layer: the
// _rowid index a query opened is the one a take plans with, cached once
// per DB. A caller that runs the tasks itself (the Flight SQL server's
// takes split into endpoints) runs them with access.ExecuteTake on the same
// snapshot.
func (db *DB) PlanTake(ctx context.Context, t *table.Table, ids []uint64, o access.TakeOptions) (*access.TakePlan, error) {
	return db.acc.PlanTake(ctx, t, ids, o)
}
