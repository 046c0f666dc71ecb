package access

import (
	"context"
	"errors"

	"github.com/stablerow/stablerow/table"
)

// CreateIndex builds a BTree on column (any orderable column, _rowid
// included) over every fragment of snapshot t and records it in the
// manifest; name "" picks <table>_<column>_idx from tableName. An index on
// _rowid is unique by construction and serves TakeByKeyExec. It is the
// plan / task / commit path of index_tasks.go run in this process, on
// Workers goroutines.
func (l *Layer) CreateIndex(ctx context.Context, t *table.Table, tableName, name, column string) (*table.Table, error) {
	plan, err := l.PlanIndexBuild(t, tableName, name, column, IndexBuildOptions{})
	if err != nil {
		return nil, err
	}
	return l.runIndexBuild(ctx, t, plan)
}

// CreateIndexKeys is CreateIndex on several key columns, or one DESC or
// NULLS FIRST, and UNIQUE (PlanIndexBuildKeys).
func (l *Layer) CreateIndexKeys(ctx context.Context, t *table.Table, tableName, name string, keys []table.IndexKey, unique bool) (*table.Table, error) {
	plan, err := l.PlanIndexBuildKeys(t, tableName, name, keys, unique, IndexBuildOptions{})
	if err != nil {
		return nil, err
	}
	return l.runIndexBuild(ctx, t, plan)
}

// OptimizeIndex brings index name of snapshot t up to date in one commit:
// every pending rewrite is composed into one remap of its addresses (not
// one rebuild per rewrite), entries of deleted rows are dropped, rows of
// fragments it does not cover are added (sorted by parallel tasks, then
// merged), and the page lookup is rebuilt. Afterwards history no index
// needs any more is trimmed.
func (l *Layer) OptimizeIndex(ctx context.Context, t *table.Table, name string) (*table.Table, error) {
	plan, err := l.PlanIndexOptimize(ctx, t, name, IndexBuildOptions{})
	if err != nil {
		return nil, err
	}
	return l.runIndexBuild(ctx, t, plan)
}

// runIndexBuild executes plan's tasks on Workers goroutines and commits
// them; on failure the runs written are removed.
func (l *Layer) runIndexBuild(ctx context.Context, t *table.Table, plan *IndexBuildPlan) (*table.Table, error) {
	results := make([]*IndexBuildResult, len(plan.Tasks))
	err := table.RunTasks(ctx, len(plan.Tasks), l.Workers(), func(ctx context.Context, i int) error {
		r, err := l.ExecuteIndexBuild(ctx, t, &plan.Tasks[i])
		results[i] = r
		return err
	})
	var nt *table.Table
	if err == nil {
		nt, err = l.CommitIndexBuild(ctx, t, plan, results)
		if err != nil && !notCommitted(err) {
			return nil, err // outcome unknown: a manifest may name a run
		}
	}
	if err != nil {
		for _, r := range results {
			if r != nil {
				removeIndexFiles(ctx, t, r.Run)
			}
		}
		return nil, err
	}
	return nt, nil
}

// notCommitted tells the errors after which no manifest names the build's
// files from store errors of unknown outcome.
func notCommitted(err error) bool {
	for _, e := range []error{table.ErrConflict, table.ErrTask, table.ErrInvalidArgument, table.ErrConservation, ErrIndex} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// SetWorkers sets how many index build tasks CreateIndex and OptimizeIndex
// run at once, and the default task count of their plans (below 1: 1).
func (l *Layer) SetWorkers(n int) { l.workers.Store(int32(max(n, 1))) }

// Workers is the value SetWorkers set (1 before any call).
func (l *Layer) Workers() int { return max(int(l.workers.Load()), 1) }
