package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// The take pipeline:
//
//	driver: ReadIDs ─► PlanTake (latest version; the _rowid index or row id
//	        sequences) ─► tasks (JSON), _missing.parquet (ords of ids with no row)
//	   │
//	   ▼
//	spread ─► takeFn: ExecuteTake per task ─► part-<seq>.parquet, part info
//	                                                  │ side input
//	Impulse ─► manifestFn: every task has a part? ─► _manifest.json
//
// takeFn states, per task:   decode ─► take ─► encode ─► put part ─► emit
//                                        ▲                  │ fail
//                                        └──── retry ◄──────┘ (attempts left)
//
// A part's name is fixed by its task (part-<seq>.parquet) and a put
// replaces the object whole, so a retried or duplicated task leaves one
// file with that task's rows: no duplicates.

// TakeConfig is a bulk take job.
type TakeConfig struct {
	DB, Table string
	// IDs is the Parquet file of row ids (local path or s3://bucket/key);
	// IDColumn its column ("" → "id").
	IDs, IDColumn string
	// Columns to take (nil: every user column and _rowid); "ord" is added.
	Columns []string
	// Out is the directory or s3:// prefix the parts and the manifest go
	// to; it must hold no earlier take's output.
	Out string
	// MaxTaskRows caps a task (0: access.DefaultMaxTaskRows).
	MaxTaskRows int
	Exec        ExecOptions
}

// Output object names under TakeConfig.Out.
const (
	ManifestName = "_manifest.json"
	MissingName  = "_missing.parquet"
	partPrefix   = "part-"
)

// TakeManifest is _manifest.json: what the take wrote.
type TakeManifest struct {
	Version uint64     `json:"version"`
	IDs     int        `json:"ids"`
	Missing int        `json:"missing"`
	Rows    uint64     `json:"rows"`
	Columns []string   `json:"columns"`
	Parts   []TakePart `json:"parts"`
}

// TakePart is one task's output file.
type TakePart struct {
	Seq  int    `json:"seq"`
	File string `json:"file"`
	Rows int64  `json:"rows"`
}

// TakeReport is what Take did: the manifest and the run's counters.
type TakeReport struct {
	Manifest TakeManifest
	Tasks    int
	Metrics  Metrics
}

// Take reads the ids, plans the take of the table's latest version in
// this process, writes the rows with "ord" as Parquet parts under c.Out by
// a pipeline on run, and returns the manifest the pipeline wrote.
func Take(ctx context.Context, run Runner, c TakeConfig) (*TakeReport, error) {
	if c.Out == "" || c.IDs == "" {
		return nil, fmt.Errorf("%w: take needs ids and an output location", ErrConfig)
	}
	out, err := openDirStore(ctx, c.Out)
	if err != nil {
		return nil, err
	}
	if old, err := out.List(ctx, ""); err != nil {
		return nil, err
	} else if slices.ContainsFunc(old, isTakeOutput) {
		return nil, fmt.Errorf("%w: %s holds an earlier take's output", ErrConfig, c.Out)
	}
	ids, err := ReadIDs(ctx, c.IDs, c.IDColumn, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	loc := TableLocation(c.DB, c.Table)
	st, err := openTableStore(ctx, loc)
	if err != nil {
		return nil, err
	}
	t, err := table.Open(ctx, st, table.Options{})
	if err != nil {
		return nil, err
	}
	plan, err := access.New(nil).PlanTake(ctx, t, ids, access.TakeOptions{MaxTaskRows: c.MaxTaskRows})
	if err != nil {
		return nil, err
	}
	cols := c.Columns
	if cols == nil {
		cols = DefaultColumns(t)
	}
	if len(plan.Missing) > 0 {
		if err := writeMissing(ctx, out, plan.Missing); err != nil {
			return nil, err
		}
	}
	m := TakeManifest{Version: plan.Version, IDs: len(ids), Missing: len(plan.Missing), Columns: cols}
	p, err := TakePipeline(loc, c.Out, plan, m, c.Exec)
	if err != nil {
		return nil, err
	}
	res, err := run(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("pipeline: take from %s: %w", loc, err)
	}
	got, err := ReadManifest(ctx, c.Out)
	if err != nil {
		return nil, err
	}
	return &TakeReport{Manifest: *got, Tasks: len(plan.Tasks), Metrics: metricsOf(res)}, nil
}

func isTakeOutput(name string) bool {
	return strings.HasPrefix(name, partPrefix) || name == ManifestName || name == MissingName
}

// DefaultColumns are the columns a take returns when none are named:
// every user column, then _rowid.
func DefaultColumns(t *table.Table) []string {
	var cols []string
	for _, f := range t.UserSchema().Fields() {
		cols = append(cols, f.Name)
	}
	return append(cols, table.RowID)
}

// TakePipeline builds the pipeline that executes plan's tasks on the table
// at loc, writing parts and then manifest m (completed with the parts)
// under out.
func TakePipeline(loc, out string, plan *access.TakePlan, m TakeManifest, o ExecOptions) (*beam.Pipeline, error) {
	if o.Run == "" {
		o.Run = newRunID()
	}
	bodies := make([][]byte, len(plan.Tasks))
	for i := range plan.Tasks {
		var err error
		if bodies[i], err = json.Marshal(&plan.Tasks[i]); err != nil {
			return nil, err
		}
	}
	p, s := beam.NewPipelineWithRoot()
	parts := beam.ParDo(s.Scope("take"), &takeFn{Table: loc, Out: out, Columns: m.Columns, Exec: o}, spread(s.Scope("tasks"), o, bodies))
	beam.ParDo0(s.Scope("manifest"), &manifestFn{Out: out, Tasks: len(plan.Tasks), Manifest: m}, beam.Impulse(s), beam.SideInput{Input: parts})
	return p, nil
}

// takeFn executes take tasks: each writes its part and emits its
// TakePart's JSON.
type takeFn struct {
	Table   string      `json:"table"`
	Out     string      `json:"out"`
	Columns []string    `json:"columns"`
	Exec    ExecOptions `json:"exec"`

	st, out store.Store
	snaps   map[uint64]*table.Table
}

func (f *takeFn) Setup(ctx context.Context) error {
	var err error
	f.snaps = map[uint64]*table.Table{}
	if f.st, err = openTableStore(ctx, f.Table); err != nil {
		return err
	}
	f.out, err = openDirStore(ctx, f.Out)
	return err
}

func (f *takeFn) snapshot(ctx context.Context, v uint64) (*table.Table, error) {
	if t, ok := f.snaps[v]; ok {
		return t, nil
	}
	t, err := table.OpenVersion(ctx, f.st, v, table.Options{})
	if err == nil {
		f.snaps[v] = t
	}
	return t, err
}

func (f *takeFn) ProcessElement(ctx context.Context, _ int, tasks func(*Task) bool, emit func([]byte)) error {
	var k Task
	for tasks(&k) {
		task, err := decodeTakeTask(k.Body)
		if err != nil {
			return err
		}
		runs := 1
		if f.Exec.Faults.Twice {
			runs = 2
		}
		for range runs {
			part := TakePart{Seq: k.Seq, File: fmt.Sprintf("%s%06d.parquet", partPrefix, k.Seq)}
			err := f.Exec.attempt(ctx, k.Seq, func() error {
				t, err := f.snapshot(ctx, task.Version)
				if err != nil {
					return err
				}
				b, err := access.ExecuteTake(ctx, t, task, f.Columns, workerMem)
				if err != nil {
					return err
				}
				data, err := encodeParquet(b.Schema(), workerMem, b)
				part.Rows = b.NumRows()
				b.Release()
				if err != nil {
					return err
				}
				if err := f.out.Put(ctx, part.File, data); err != nil {
					return err
				}
				rowsWritten.Inc(ctx, part.Rows)
				return nil
			})
			if err != nil {
				return err
			}
			out, err := json.Marshal(part)
			if err != nil {
				return err
			}
			emit(out)
		}
	}
	return nil
}

func decodeTakeTask(b []byte) (*access.TakeTask, error) {
	var k access.TakeTask
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&k); err != nil {
		return nil, fmt.Errorf("%w: %w", access.ErrTakeTask, err)
	}
	if d.More() {
		return nil, fmt.Errorf("%w: trailing data after the task", access.ErrTakeTask)
	}
	return &k, nil
}

// manifestFn writes _manifest.json once every task has its part. It runs
// once, on one worker.
type manifestFn struct {
	Out      string       `json:"out"`
	Tasks    int          `json:"tasks"`
	Manifest TakeManifest `json:"manifest"`
}

func (f *manifestFn) ProcessElement(ctx context.Context, _ []byte, parts func(*[]byte) bool) error {
	m := f.Manifest
	bySeq := make([]*TakePart, f.Tasks)
	var b []byte
	for parts(&b) {
		var p TakePart
		if err := json.Unmarshal(b, &p); err != nil {
			return err
		}
		if p.Seq < 0 || p.Seq >= f.Tasks {
			return fmt.Errorf("%w: part of task %d of %d", ErrConfig, p.Seq, f.Tasks)
		}
		if bySeq[p.Seq] == nil { // a duplicate execution wrote the same file
			bySeq[p.Seq] = &p
		}
	}
	for seq, p := range bySeq {
		if p == nil {
			return fmt.Errorf("pipeline: take task %d wrote no part", seq)
		}
		m.Parts = append(m.Parts, *p)
		m.Rows += uint64(p.Rows)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	out, err := openDirStore(ctx, f.Out)
	if err != nil {
		return err
	}
	return out.Put(ctx, ManifestName, data)
}

// ReadManifest reads the manifest of the take written under out.
func ReadManifest(ctx context.Context, out string) (*TakeManifest, error) {
	st, err := openDirStore(ctx, out)
	if err != nil {
		return nil, err
	}
	b, err := st.Get(ctx, ManifestName)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("pipeline: %s has no %s: the take did not finish: %w", out, ManifestName, err)
	}
	if err != nil {
		return nil, err
	}
	var m TakeManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("pipeline: %s/%s: %w", out, ManifestName, err)
	}
	return &m, nil
}

func writeMissing(ctx context.Context, out store.Store, missing []uint64) error {
	mem := memory.DefaultAllocator
	b := array.NewUint64Builder(mem)
	defer b.Release()
	for _, pos := range missing {
		b.Append(access.Ord(pos)) // the ord the parts would give the id
	}
	a := b.NewArray()
	defer a.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: access.OrdColumn, Type: arrow.PrimitiveTypes.Uint64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{a}, int64(len(missing)))
	defer rec.Release()
	data, err := encodeParquet(schema, mem, rec)
	if err != nil {
		return err
	}
	return out.Put(ctx, MissingName, data)
}
