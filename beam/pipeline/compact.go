package pipeline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// The compact pipeline:
//
//	driver: PlanCompaction(latest version) ─► tasks (JSON)
//	   │
//	   ▼
//	spread ─► compactFn: ExecuteCompaction per task ─► results (JSON)
//	                                                     │ side input
//	Impulse ─► commitFn: CommitCompaction(plan, results) ◄┘  (one worker, once)
//
// compactFn states, per task:   decode ─► execute ─► emit
//                                           │  ▲
//                                     fail  ▼  │ attempts left
//                                         retry ┘ (else the bundle fails)

// CompactConfig is a compaction job: the table (by its database location
// and name) and the library's options.
type CompactConfig struct {
	DB, Table string
	// TargetRows and MinDeletedFraction: table.CompactOptions.
	TargetRows         int
	MinDeletedFraction float64
	Exec               ExecOptions
}

// CompactReport is what a compaction did.
type CompactReport struct {
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
func Compact(ctx context.Context, run Runner, c CompactConfig) (*CompactReport, error) {
	loc := TableLocation(c.DB, c.Table)
	st, err := openTableStore(ctx, loc)
	if err != nil {
		return nil, err
	}
	t, err := table.Open(ctx, st, table.Options{})
	if err != nil {
		return nil, err
	}
	plan, err := t.PlanCompaction(table.CompactOptions{TargetRows: c.TargetRows,
		MinDeletedFraction: c.MinDeletedFraction, DeferIndexRemap: true})
	if err != nil {
		return nil, err
	}
	rep := &CompactReport{Plan: plan.ID, Tasks: len(plan.Tasks), VersionBefore: t.Version(), FragmentsBefore: len(t.Fragments())}
	if len(plan.Tasks) > 0 {
		p, err := CompactPipeline(loc, plan, c.Exec)
		if err != nil {
			return nil, err
		}
		res, err := run(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("pipeline: compact %s: %w", loc, err)
		}
		rep.Metrics = metricsOf(res)
	}
	after, err := table.Open(ctx, st, table.Options{})
	if err != nil {
		return nil, err
	}
	rep.VersionAfter, rep.FragmentsAfter = after.Version(), len(after.Fragments())
	return rep, nil
}

// CompactPipeline builds the pipeline that executes plan's tasks on the
// table at loc and commits them.
func CompactPipeline(loc string, plan *table.CompactPlan, o ExecOptions) (*beam.Pipeline, error) {
	if o.Run == "" {
		o.Run = newRunID()
	}
	planJSON, err := json.Marshal(plan)
	if err != nil {
		return nil, err
	}
	bodies := make([][]byte, len(plan.Tasks))
	for i := range plan.Tasks {
		if bodies[i], err = json.Marshal(&plan.Tasks[i]); err != nil {
			return nil, err
		}
	}
	p, s := beam.NewPipelineWithRoot()
	results := beam.ParDo(s.Scope("execute"), &compactFn{Table: loc, Exec: o}, spread(s.Scope("tasks"), o, bodies))
	beam.ParDo0(s.Scope("commit"), &commitFn{Table: loc, Plan: planJSON}, beam.Impulse(s), beam.SideInput{Input: results})
	return p, nil
}

// compactFn executes compaction tasks: each writes its destination file
// and emits its result's JSON.
type compactFn struct {
	Table string      `json:"table"`
	Exec  ExecOptions `json:"exec"`

	st    store.Store
	snaps map[uint64]*table.Table // the versions tasks read, opened once
}

func (f *compactFn) Setup(ctx context.Context) error {
	st, err := openTableStore(ctx, f.Table)
	f.st, f.snaps = st, map[uint64]*table.Table{}
	return err
}

func (f *compactFn) snapshot(ctx context.Context, v uint64) (*table.Table, error) {
	if t, ok := f.snaps[v]; ok {
		return t, nil
	}
	t, err := table.OpenVersion(ctx, f.st, v, table.Options{})
	if err == nil {
		f.snaps[v] = t
	}
	return t, err
}

func (f *compactFn) ProcessElement(ctx context.Context, _ int, tasks func(*Task) bool, emit func([]byte)) error {
	var k Task
	for tasks(&k) {
		task, err := table.DecodeCompactTask(k.Body)
		if err != nil {
			return err
		}
		runs := 1
		if f.Exec.Faults.Twice {
			runs = 2
		}
		for range runs {
			var out []byte
			err := f.Exec.attempt(ctx, k.Seq, func() error {
				t, err := f.snapshot(ctx, task.Version)
				if err != nil {
					return err
				}
				r, err := t.ExecuteCompaction(ctx, task, workerMem)
				if err != nil {
					return err
				}
				rowsWritten.Inc(ctx, int64(r.Rows()))
				out, err = json.Marshal(r)
				return err
			})
			if err != nil {
				return err
			}
			emit(out)
		}
	}
	return nil
}

// commitFn commits the results in one atomic commit on top of the
// table's latest version. It runs once, on one worker (its main input is
// the single Impulse element).
type commitFn struct {
	Table string `json:"table"`
	Plan  []byte `json:"plan"`
}

func (f *commitFn) ProcessElement(ctx context.Context, _ []byte, results func(*[]byte) bool) error {
	plan, err := table.DecodeCompactPlan(f.Plan)
	if err != nil {
		return err
	}
	var rs []*table.CompactResult
	var b []byte
	for results(&b) {
		r, err := table.DecodeCompactResult(b)
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	st, err := openTableStore(ctx, f.Table)
	if err != nil {
		return err
	}
	t, err := table.Open(ctx, st, table.Options{})
	if err != nil {
		return err
	}
	if _, err := t.CommitCompaction(ctx, plan, rs); err != nil {
		return fmt.Errorf("pipeline: commit plan %s: %w", plan.ID, err)
	}
	return nil
}
