package pipeline

import (
	"context"

	"github.com/stablerow/stablerow/access"
)

// IndexConfig is an index job: OPTIMIZE INDEX Name (Optimize set), or
// CREATE INDEX Name ON Column.
type IndexConfig struct {
	DB, Table, Name, Column string
	Optimize                bool
	// Tasks is how many scan tasks the fragments are cut into (0:
	// Workers, at least 1).
	Tasks int
	Exec  ExecOptions
}

// Index plans an index build or optimize of the table's latest version
// in this process (access.PlanIndexBuild / PlanIndexOptimize), runs its
// tasks (each sorts a run of entries) and the commit (the runs merged
// into one BTree, one index commit) as a pipeline on run.
func Index(ctx context.Context, run Runner, c IndexConfig) (*Report, error) {
	loc, t, err := openLatest(ctx, c.DB, c.Table)
	if err != nil {
		return nil, err
	}
	o := access.IndexBuildOptions{Tasks: c.Tasks}
	if o.Tasks <= 0 {
		o.Tasks = max(c.Exec.Workers, 1)
	}
	var plan *access.IndexBuildPlan
	l := access.New(nil)
	if c.Optimize {
		plan, err = l.PlanIndexOptimize(ctx, t, c.Name, o)
	} else {
		plan, err = l.PlanIndexBuild(t, c.Table, c.Name, c.Column, o)
	}
	if err != nil {
		return nil, err
	}
	rep := &Report{Plan: plan.ID, Tasks: len(plan.Tasks), VersionBefore: t.Version(), FragmentsBefore: len(t.Fragments())}
	pj, bodies, err := encodeJob(plan, plan.Tasks)
	if err != nil {
		return nil, err
	}
	if rep.Metrics, err = runJob(ctx, run, KindIndex, loc, pj, bodies, c.Exec); err != nil {
		return nil, err
	}
	return rep.after(ctx, t)
}
