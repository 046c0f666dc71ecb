package pipeline

import (
	"context"
	"fmt"

	"github.com/stablerow/stablerow/table"
)

// ReclusterConfig is a recluster job (CLUSTER t USING index): the table is
// reordered by the column of Index.
type ReclusterConfig struct {
	DB, Table, Index string
	// Destinations is the number of destination fragments (0: the
	// engine's rule, live rows / 2^20 rounded up, at least 4).
	Destinations int
	// Tasks is how many tasks the destinations are cut into (0: Workers,
	// at least 1); each task reads every source once.
	Tasks int
	Exec  ExecOptions
}

// Recluster plans a recluster of the table's latest version in this
// process (with the index remap deferred, as engine.DB.Cluster), runs its
// tasks and the commit as a pipeline on run, and reports the table after.
func Recluster(ctx context.Context, run Runner, c ReclusterConfig) (*Report, error) {
	loc, t, err := openLatest(ctx, c.DB, c.Table)
	if err != nil {
		return nil, err
	}
	m := t.Index(c.Index)
	if m == nil {
		return nil, fmt.Errorf("%w: no index %q on %s", ErrConfig, c.Index, c.Table)
	}
	dests := c.Destinations
	if dests <= 0 {
		// engine.DB.Cluster's rule with the default fragment size.
		dests = max(int((t.LiveRows()+1<<20-1)/(1<<20)), min(4, int(t.LiveRows())))
	}
	tasks := c.Tasks
	if tasks <= 0 {
		tasks = max(c.Exec.Workers, 1)
	}
	rep := &Report{VersionBefore: t.Version(), FragmentsBefore: len(t.Fragments())}
	if dests < 1 {
		return rep.after(ctx, t)
	}
	plan, err := t.PlanRecluster(ctx, m.Column, table.ReclusterOptions{Destinations: dests, DeferIndexRemap: true, Tasks: tasks})
	if err != nil || plan == nil {
		if err != nil {
			return nil, err
		}
		return rep.after(ctx, t)
	}
	rep.Plan, rep.Tasks = plan.ID, len(plan.Tasks)
	pj, bodies, err := encodeJob(plan, plan.Tasks)
	if err != nil {
		return nil, err
	}
	if rep.Metrics, err = runJob(ctx, run, KindRecluster, loc, pj, bodies, c.Exec); err != nil {
		return nil, err
	}
	return rep.after(ctx, t)
}
