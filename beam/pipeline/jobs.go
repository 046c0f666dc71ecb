package pipeline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// The plan / task / commit jobs (compaction, recluster, index build and
// optimize) share one pipeline; Kind says which library calls a task and
// the commit make:
//
//	driver: Plan (latest version) ─► tasks (JSON)
//	   │
//	   ▼
//	spread ─► executeFn: Execute<Kind> per task ─► results (JSON)
//	                                                 │ side input
//	Impulse ─► commitFn: Commit<Kind>(plan, results) ◄┘  (one worker, once)
//
// executeFn states, per task:   decode ─► execute ─► emit
//                                            │  ▲
//                                      fail  ▼  │ attempts left
//                                          retry ┘ (else the bundle fails)
//
// Execute writes new files only and never commits, so a retried or
// duplicated task costs only orphan files; the commit uses the first
// result of each task.

// Kind names a plan / task / commit job.
type Kind string

// The jobs.
const (
	KindCompact   Kind = "compact"
	KindRecluster Kind = "recluster"
	KindIndex     Kind = "index" // build or optimize: one plan type
)

// jobPipeline builds the pipeline of a job whose plan and task bodies are
// already encoded.
func jobPipeline(kind Kind, loc string, plan []byte, bodies [][]byte, o ExecOptions) *beam.Pipeline {
	if o.Run == "" {
		o.Run = newRunID()
	}
	p, s := beam.NewPipelineWithRoot()
	results := beam.ParDo(s.Scope("execute"), &executeFn{Kind: kind, Table: loc, Exec: o}, spread(s.Scope("tasks"), o, bodies))
	beam.ParDo0(s.Scope("commit"), &commitFn{Kind: kind, Table: loc, Plan: plan}, beam.Impulse(s), beam.SideInput{Input: results})
	return p
}

// encodeJob encodes a plan and each of its tasks.
func encodeJob[T any](plan any, tasks []T) ([]byte, [][]byte, error) {
	pj, err := json.Marshal(plan)
	if err != nil {
		return nil, nil, err
	}
	bodies := make([][]byte, len(tasks))
	for i := range tasks {
		if bodies[i], err = json.Marshal(&tasks[i]); err != nil {
			return nil, nil, err
		}
	}
	return pj, bodies, nil
}

// runJob runs a job's pipeline and returns its counters.
func runJob(ctx context.Context, run Runner, kind Kind, loc string, plan []byte, bodies [][]byte, o ExecOptions) (Metrics, error) {
	res, err := run(ctx, jobPipeline(kind, loc, plan, bodies, o))
	if err != nil {
		return Metrics{}, fmt.Errorf("pipeline: %s %s: %w", kind, loc, err)
	}
	return metricsOf(res), nil
}

// executeFn executes the tasks of one job: each writes its files and
// emits its result's JSON.
type executeFn struct {
	Kind  Kind        `json:"kind"`
	Table string      `json:"table"`
	Exec  ExecOptions `json:"exec"`

	st    store.Store
	acc   *access.Layer           // index builds
	snaps map[uint64]*table.Table // the versions tasks read, opened once
}

func (f *executeFn) Setup(ctx context.Context) error {
	st, err := openTableStore(ctx, f.Table)
	f.st, f.acc, f.snaps = st, access.New(workerMem), map[uint64]*table.Table{}
	return err
}

func (f *executeFn) snapshot(ctx context.Context, v uint64) (*table.Table, error) {
	if t, ok := f.snaps[v]; ok {
		return t, nil
	}
	t, err := table.OpenVersion(ctx, f.st, v, table.Options{})
	if err == nil {
		f.snaps[v] = t
	}
	return t, err
}

// execute runs one task body and returns its result's JSON and the rows
// it wrote.
func (f *executeFn) execute(ctx context.Context, body []byte) ([]byte, uint64, error) {
	var (
		version uint64
		do      func(t *table.Table) (any, uint64, error)
	)
	switch f.Kind {
	case KindCompact:
		k, err := table.DecodeCompactTask(body)
		if err != nil {
			return nil, 0, err
		}
		version = k.Version
		do = func(t *table.Table) (any, uint64, error) {
			r, err := t.ExecuteCompaction(ctx, k, workerMem)
			if err != nil {
				return nil, 0, err
			}
			return r, r.Rows(), nil
		}
	case KindRecluster:
		k, err := table.DecodeReclusterTask(body)
		if err != nil {
			return nil, 0, err
		}
		version = k.Version
		do = func(t *table.Table) (any, uint64, error) {
			r, err := t.ExecuteRecluster(ctx, k, workerMem)
			if err != nil {
				return nil, 0, err
			}
			var n uint64
			for _, fl := range r.Files {
				n += fl.Rows
			}
			return r, n, nil
		}
	case KindIndex:
		k, err := access.DecodeIndexBuildTask(body)
		if err != nil {
			return nil, 0, err
		}
		version = k.Version
		do = func(t *table.Table) (any, uint64, error) {
			r, err := f.acc.ExecuteIndexBuild(ctx, t, k)
			if err != nil {
				return nil, 0, err
			}
			return r, r.Rows, nil
		}
	default:
		return nil, 0, fmt.Errorf("%w: job kind %q", ErrConfig, f.Kind)
	}
	t, err := f.snapshot(ctx, version)
	if err != nil {
		return nil, 0, err
	}
	r, rows, err := do(t)
	if err != nil {
		return nil, 0, err
	}
	out, err := json.Marshal(r)
	return out, rows, err
}

func (f *executeFn) ProcessElement(ctx context.Context, _ int, tasks func(*Task) bool, emit func([]byte)) error {
	runs := 1
	if f.Exec.Faults.Twice {
		runs = 2
	}
	var k Task
	for tasks(&k) {
		for range runs {
			var out []byte
			err := f.Exec.attempt(ctx, k.Seq, func() error {
				r, rows, err := f.execute(ctx, k.Body)
				if err == nil {
					out = r
					rowsWritten.Inc(ctx, int64(rows))
				}
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

// commitFn commits a job's results in one atomic commit on top of the
// table's latest version. It runs once, on one worker (its main input is
// the single Impulse element).
type commitFn struct {
	Kind  Kind   `json:"kind"`
	Table string `json:"table"`
	Plan  []byte `json:"plan"`
}

func (f *commitFn) ProcessElement(ctx context.Context, _ []byte, results func(*[]byte) bool) error {
	var bodies [][]byte
	var b []byte
	for results(&b) {
		bodies = append(bodies, b)
	}
	st, err := openTableStore(ctx, f.Table)
	if err != nil {
		return err
	}
	t, err := table.Open(ctx, st, table.Options{})
	if err != nil {
		return err
	}
	switch f.Kind {
	case KindCompact:
		plan, err := table.DecodeCompactPlan(f.Plan)
		if err != nil {
			return err
		}
		rs, err := decodeAll(bodies, table.DecodeCompactResult)
		if err != nil {
			return err
		}
		_, err = t.CommitCompaction(ctx, plan, rs)
		return wrapCommit(plan.ID, err)
	case KindRecluster:
		plan, err := table.DecodeReclusterPlan(f.Plan)
		if err != nil {
			return err
		}
		rs, err := decodeAll(bodies, table.DecodeReclusterResult)
		if err != nil {
			return err
		}
		_, err = t.CommitRecluster(ctx, plan, rs)
		return wrapCommit(plan.ID, err)
	case KindIndex:
		plan, err := access.DecodeIndexBuildPlan(f.Plan)
		if err != nil {
			return err
		}
		rs, err := decodeAll(bodies, access.DecodeIndexBuildResult)
		if err != nil {
			return err
		}
		_, err = access.New(workerMem).CommitIndexBuild(ctx, t, plan, rs)
		return wrapCommit(plan.ID, err)
	}
	return fmt.Errorf("%w: job kind %q", ErrConfig, f.Kind)
}

func decodeAll[R any](bodies [][]byte, dec func([]byte) (*R, error)) ([]*R, error) {
	out := make([]*R, len(bodies))
	for i, b := range bodies {
		r, err := dec(b)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

func wrapCommit(plan string, err error) error {
	if err != nil {
		return fmt.Errorf("pipeline: commit plan %s: %w", plan, err)
	}
	return nil
}
