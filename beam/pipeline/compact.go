package pipeline

import (
	"context"

	"github.com/stablerow/stablerow/table"
)

// CompactConfig is a compaction job: the table (by its database location
// and name) and the library's options.
type CompactConfig struct {
	DB, Table string
	// TargetRows and MinDeletedFraction: table.CompactOptions.
	TargetRows         int
	MinDeletedFraction float64
	Exec               ExecOptions
}

// Report is what a plan / task / commit job did.
type Report struct {
	Plan                            string
	Tasks                           int
	VersionBefore, VersionAfter     uint64
	FragmentsBefore, FragmentsAfter int
	Metrics                         Metrics
}

// Compact plans a compaction of the table's latest version in this
// process, runs its tasks and the commit as a pipeline on run, and reports
// the table after. The index remap is deferred, as in VACUUM FULL
// (engine.DB.Compact): the pipeline is that command run on Beam.
func Compact(ctx context.Context, run Runner, c CompactConfig) (*Report, error) {
	loc, t, err := openLatest(ctx, c.DB, c.Table)
	if err != nil {
		return nil, err
	}
	plan, err := t.PlanCompaction(table.CompactOptions{TargetRows: c.TargetRows,
		MinDeletedFraction: c.MinDeletedFraction, DeferIndexRemap: true})
	if err != nil {
		return nil, err
	}
	rep := &Report{Plan: plan.ID, Tasks: len(plan.Tasks), VersionBefore: t.Version(), FragmentsBefore: len(t.Fragments())}
	if len(plan.Tasks) > 0 {
		pj, bodies, err := encodeJob(plan, plan.Tasks)
		if err != nil {
			return nil, err
		}
		if rep.Metrics, err = runJob(ctx, run, KindCompact, loc, pj, bodies, c.Exec); err != nil {
			return nil, err
		}
	}
	return rep.after(ctx, t)
}

// openLatest opens the latest version of table name of the database at db.
func openLatest(ctx context.Context, db, name string) (string, *table.Table, error) {
	loc := TableLocation(db, name)
	st, err := openTableStore(ctx, loc)
	if err != nil {
		return "", nil, err
	}
	t, err := table.Open(ctx, st, table.Options{})
	return loc, t, err
}

// after completes the report with the table's latest version (t is the
// version the plan read).
func (rep *Report) after(ctx context.Context, t *table.Table) (*Report, error) {
	nt, err := table.Open(ctx, t.Store(), table.Options{})
	if err != nil {
		return nil, err
	}
	rep.VersionAfter, rep.FragmentsAfter = nt.Version(), len(nt.Fragments())
	return rep, nil
}
