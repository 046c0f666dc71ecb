package table

import (
	"context"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/internal/taskjson"
)

// Compaction as plan / tasks / commit, so that a scheduler (local workers
// here, a distributed engine elsewhere) can run the heavy part:
//
//	PlanCompaction ──► CompactPlan{Tasks} ──JSON──► ExecuteCompaction(task) ──► CompactResult
//	     (reads one version)                          (writes data files only,       │
//	                                                   never commits; any worker)    │
//	CommitCompaction(plan, results) ◄──────────────────────JSON──────────────────────┘
//	     (one atomic rewrite commit; the table's usual conflict rules)
//
// Each run of adjacent fragments the planner merges is one transition,
// cut into tasks of one destination fragment each (TargetRows live rows,
// the last fewer): a task skips the first Skip live rows of its sources
// and writes the next Rows, so the tasks of a run write exactly the files the
// run would be written as in one piece, in parallel. A task names the
// version it read and, per source fragment, the data
// file, row count and deletion digest it expects, so a worker holding only
// the store can check it reads exactly what the planner saw. Execute is
// idempotent in effect: its result names the files it wrote, a second run
// writes other files, and whichever result reaches the commit first is
// used (the others' files are orphans no manifest names, for Cleanup).
// A run commits only when every one of its tasks has a result; the runs
// of failed tasks are simply not compacted this time.

// TaskFormat is the version of the JSON encoding of plans, tasks and
// results; decoders refuse any other.
const TaskFormat = 1

// ErrTask: a plan, task or result that is malformed, of another format
// version, or foreign to the table or plan it is used with.
var ErrTask = errkind.New(errkind.InvalidArgument, "table: bad rewrite task")

// CompactPlan is the output of PlanCompaction: the tasks of one compaction
// of one table version.
type CompactPlan struct {
	PlanHeader
	DeferIndexRemap bool          `json:"defer_index_remap,omitempty"`
	Tasks           []CompactTask `json:"tasks"`
}

// CompactTask writes one destination fragment of run Run: the Rows live
// rows of Sources (in order) that follow their first Skip live rows.
type CompactTask struct {
	TaskHeader
	Run        int          `json:"run"`
	TargetRows int          `json:"target_rows"`
	Skip       uint64       `json:"skip"`
	Rows       uint64       `json:"rows"`
	Sources    []TaskSource `json:"sources"`
}

// TaskSource is a source fragment as the planner read it.
type TaskSource struct {
	Fragment       uint32 `json:"fragment"`
	DataFile       string `json:"data_file"`
	PhysicalRows   uint64 `json:"physical_rows"`
	LiveRows       uint64 `json:"live_rows"`
	DeletionDigest uint32 `json:"deletion_digest"`
}

// CompactResult is what ExecuteCompaction wrote for one task.
type CompactResult struct {
	ResultHeader
	Files []ResultFile `json:"files"`
}

// ResultFile is one destination data file, in row order.
type ResultFile struct {
	DataFile  string       `json:"data_file"`
	Rows      uint64       `json:"rows"`
	BatchRows uint64       `json:"batch_rows"`
	File      DataFileInfo `json:"file"`
}

// Rows is the number of rows the result wrote.
func (r *CompactResult) Rows() uint64 {
	var n uint64
	for _, f := range r.Files {
		n += f.Rows
	}
	return n
}

// PlanCompaction plans a compaction of t (see Compact for what is merged)
// without writing anything. An empty plan has no tasks.
func (t *Table) PlanCompaction(o CompactOptions) (*CompactPlan, error) {
	o = o.withDefaults(t)
	runs, err := t.planCompaction(o)
	if err != nil {
		return nil, err
	}
	p := &CompactPlan{PlanHeader: PlanHeader{Format: TaskFormat, ID: NewID(), Version: t.Version()}, DeferIndexRemap: o.DeferIndexRemap}
	target := uint64(o.TargetRows)
	for r, run := range runs {
		srcs := make([]TaskSource, len(run))
		var total uint64
		for i, f := range run {
			d, err := DeletionDigest(f.Deletions)
			if err != nil {
				return nil, err
			}
			srcs[i] = TaskSource{Fragment: f.ID, DataFile: f.DataFile,
				PhysicalRows: f.PhysicalRows, LiveRows: f.LiveRows(), DeletionDigest: d}
			total += f.LiveRows()
		}
		if total == 0 {
			// Only dead rows: one task that writes nothing and retires
			// the sources.
			p.Tasks = append(p.Tasks, CompactTask{TaskHeader: p.Task(len(p.Tasks)),
				Run: r, TargetRows: o.TargetRows, Sources: srcs})
			continue
		}
		// Cut the run's live rows at multiples of target; a task's sources
		// are the fragments its rows come from (neighbouring tasks share a
		// fragment cut in the middle).
		// Fragments without live rows go with the task that ends just
		// before them (or starts with them), so that every source of the
		// run is in a task and only a fragment cut in the middle is shared.
		first, before := 0, uint64(0) // first source of the task, live rows of the run before it
		for lo := uint64(0); lo < total; lo += target {
			hi := min(lo+target, total)
			last, end := first, before+srcs[first].LiveRows
			for end < hi {
				last++
				end += srcs[last].LiveRows
			}
			cut := last // the source holding the task's last row
			for end == hi && last+1 < len(srcs) && srcs[last+1].LiveRows == 0 {
				last++
			}
			p.Tasks = append(p.Tasks, CompactTask{TaskHeader: p.Task(len(p.Tasks)),
				Run: r, TargetRows: o.TargetRows, Skip: lo - before, Rows: hi - lo, Sources: slices.Clone(srcs[first : last+1])})
			if end == hi {
				first, before = last+1, end
			} else {
				// The next task starts inside srcs[last].
				first, before = cut, end-srcs[cut].LiveRows
			}
		}
	}
	return p, nil
}

func (o CompactOptions) withDefaults(t *Table) CompactOptions {
	if o.TargetRows <= 0 {
		o.TargetRows = t.opts.MaxRowsPerFragment
	}
	if o.MinDeletedFraction == 0 {
		o.MinDeletedFraction = 0.1
	}
	if o.Mem == nil {
		o.Mem = memory.DefaultAllocator
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	return o
}

// atVersion returns a snapshot of t's table at version v (t itself when
// it is that version).
func (t *Table) atVersion(ctx context.Context, v uint64) (*Table, error) {
	if t.Version() == v {
		return t, nil
	}
	return OpenVersion(ctx, t.st, v, t.opts)
}

// taskSources is TaskFragments for a task that needs at least one source.
func (s *Table) taskSources(srcs []TaskSource) ([]*Fragment, error) {
	if len(srcs) == 0 {
		return nil, errorf(ErrTask, "task has no sources")
	}
	return s.TaskFragments(srcs)
}

// TaskFragments resolves a task's sources in snapshot s, checking each is
// the fragment the planner read (ErrTask otherwise): same data file, row
// counts and deletions.
func (s *Table) TaskFragments(srcs []TaskSource) ([]*Fragment, error) {
	out := make([]*Fragment, len(srcs))
	for i, ts := range srcs {
		f := s.m.Fragment(ts.Fragment)
		if f == nil {
			return nil, errorf(ErrTask, "no fragment %d in version %d", ts.Fragment, s.Version())
		}
		d, err := DeletionDigest(f.Deletions)
		if err != nil {
			return nil, err
		}
		if f.DataFile != ts.DataFile || f.PhysicalRows != ts.PhysicalRows || f.LiveRows() != ts.LiveRows || d != ts.DeletionDigest {
			return nil, errorf(ErrTask, "fragment %d of version %d is not the one the task names", ts.Fragment, s.Version())
		}
		out[i] = f
	}
	return out, nil
}

// ExecuteCompaction writes the destination files of task k, reading the
// version the task names (t may be any snapshot of the same table). It
// never commits; running it again writes new files and returns another
// valid result for the same task.
func (t *Table) ExecuteCompaction(ctx context.Context, k *CompactTask, mem memory.Allocator) (_ *CompactResult, err error) {
	if err := k.validate(); err != nil {
		return nil, err
	}
	ctx, end := holdIntent(ctx, t.st, "compaction task")
	defer end(&err)
	s, srcs, mem, err := t.openTask(ctx, &k.TaskHeader, k.Sources, mem)
	if err != nil {
		return nil, err
	}
	files, err := s.writeRange(ctx, srcs, k.Skip, k.Rows, mem)
	if err != nil {
		return nil, err
	}
	return &CompactResult{ResultHeader: k.Result(), Files: resultFiles(files)}, nil
}

// openTask is what executing any rewrite task starts with: the snapshot of
// the version task k read, its sources resolved and checked there, and
// the allocator (the default when mem is nil).
func (t *Table) openTask(ctx context.Context, k *TaskHeader, sources []TaskSource, mem memory.Allocator) (*Table, []*Fragment, memory.Allocator, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	s, err := t.atVersion(ctx, k.Version)
	if err != nil {
		return nil, nil, nil, err
	}
	srcs, err := s.taskSources(sources)
	if err != nil {
		return nil, nil, nil, err
	}
	return s, srcs, mem, nil
}

// resultFiles lists the files a task wrote, in row order, for its result.
func resultFiles(files []newFragment) []ResultFile {
	out := make([]ResultFile, len(files))
	for i, d := range files {
		out[i] = ResultFile{DataFile: d.dataFile, Rows: d.rows, BatchRows: d.batchRows, File: d.file}
	}
	return out
}

// writeRange copies n live rows of srcs, after the first skip, into one
// data file (none when n is 0).
func (t *Table) writeRange(ctx context.Context, srcs []*Fragment, skip, n uint64, mem memory.Allocator) ([]newFragment, error) {
	if n == 0 {
		return nil, nil
	}
	fw := t.newFragmentWriter(ctx, mem)
	fw.maxRows = int(min(n, math.MaxInt32))
	sc, err := t.Scan(ctx, ScanOptions{Columns: t.userColumns(), Fragments: fragmentIDs(srcs), Mem: mem})
	if err != nil {
		return nil, err
	}
	left := n
	for left > 0 && sc.Next() {
		b := sc.RecordBatch()
		rows := uint64(b.NumRows())
		if skip >= rows {
			skip -= rows
			continue
		}
		m := min(rows-skip, left)
		part := b.NewSlice(int64(skip), int64(skip+m))
		err = fw.write(part)
		part.Release()
		if err != nil {
			break
		}
		skip, left = 0, left-m
	}
	if err == nil {
		err = sc.Err()
	}
	sc.Release()
	if err == nil && left > 0 {
		err = errorf(ErrConservation, "compaction task: %d of %d rows missing from its sources", left, n)
	}
	if err != nil {
		fw.abort()
		return nil, err
	}
	out, err := fw.finish()
	if err != nil {
		fw.abort()
		return nil, err
	}
	if len(out) != 1 || out[0].rows != n {
		for _, d := range out {
			_ = t.st.Delete(ctx, d.dataFile)
		}
		return nil, errorf(ErrConservation, "compaction task wrote %d files for %d rows", len(out), n)
	}
	return out, nil
}

// CommitCompaction commits the results of plan's tasks in one rewrite
// commit on top of t's table. Every result must belong to a task of the
// plan and hold exactly its task's live rows; a task with no result is
// skipped (its sources stay), and of two results for one task the first
// wins (the other's files are orphans). A source replaced since the plan
// was made fails the commit with ErrConflict; deletes committed since are
// carried over onto the destinations (the table's rewrite rules).
func (t *Table) CommitCompaction(ctx context.Context, plan *CompactPlan, results []*CompactResult) (*Table, error) {
	groups, err := t.compactionGroups(ctx, plan, results)
	if err != nil {
		return nil, err
	}
	if len(groups) == 0 {
		return t, nil
	}
	// A source already replaced in this snapshot can only conflict: refuse
	// before the rewrite reserves fragment ids (the commit itself checks
	// again against whatever is newest then).
	for _, g := range groups {
		for _, f := range g.sources {
			if now := t.m.Fragment(f.ID); now == nil || now.DataFile != f.DataFile {
				return nil, errorf(ErrConflict, "fragment %d was rewritten or removed after version %d", f.ID, plan.Version)
			}
		}
	}
	return t.commitRewrite(ctx, groups, plan.DeferIndexRemap, "compact")
}

// compactionGroups checks results against plan and the version it read
// and turns them into rewrite groups.
func (t *Table) compactionGroups(ctx context.Context, plan *CompactPlan, results []*CompactResult) ([]*rewriteGroup, error) {
	if err := plan.validate(); err != nil {
		return nil, err
	}
	if err := plan.CheckSnapshot(t); err != nil {
		return nil, err
	}
	base, err := t.atVersion(ctx, plan.Version)
	if err != nil {
		return nil, err
	}
	byTask, err := ResultsByTask(&plan.PlanHeader, len(plan.Tasks), results, (*CompactResult).validate)
	if err != nil {
		return nil, err
	}
	var groups []*rewriteGroup
	for lo := 0; lo < len(plan.Tasks); {
		hi := lo + 1
		for hi < len(plan.Tasks) && plan.Tasks[hi].Run == plan.Tasks[lo].Run {
			hi++
		}
		g, err := base.runGroup(plan.Tasks[lo:hi], byTask[lo:hi])
		if err != nil {
			return nil, err
		}
		if g != nil {
			groups = append(groups, g)
		}
		lo = hi
	}
	return groups, nil
}

// runGroup makes the rewrite group of one run from its tasks' results, or
// nil when a task of the run has none (the run is not committed).
func (s *Table) runGroup(tasks []CompactTask, results []*CompactResult) (*rewriteGroup, error) {
	if slices.Contains(results, nil) {
		return nil, nil
	}
	g := &rewriteGroup{kind: TransitionOrdered}
	for i := range tasks {
		k, r := &tasks[i], results[i]
		srcs, err := s.taskSources(k.Sources)
		if err != nil {
			return nil, err
		}
		if n := len(g.sources); n > 0 && g.sources[n-1] == srcs[0] {
			srcs = srcs[1:] // the fragment the previous task ends in
		}
		if n := len(g.sources); n > 0 && len(srcs) > 0 && srcs[0].ID <= g.sources[n-1].ID {
			return nil, errorf(ErrTask, "task %d: sources overlap the previous task's", k.Seq)
		}
		g.sources = append(g.sources, srcs...)
		if got := r.Rows(); got != k.Rows {
			return nil, errorf(ErrConservation, "task %d: result has %d rows, the task %d", k.Seq, got, k.Rows)
		}
		for _, f := range r.Files {
			if f.Rows == 0 || f.DataFile == "" || f.BatchRows == 0 {
				return nil, errorf(ErrTask, "task %d: empty or unnamed result file", k.Seq)
			}
			g.dests = append(g.dests, newFragment{dataFile: f.DataFile, file: f.File, rows: f.Rows, batchRows: f.BatchRows})
		}
	}
	var ids []uint64
	for _, f := range g.sources {
		ids = liveIDs(ids, f)
	}
	if err := assignIDs(g.dests, ids); err != nil {
		return nil, err
	}
	return g, nil
}

func (p *CompactPlan) validate() error {
	if p == nil || p.Format != TaskFormat {
		return errorf(ErrTask, "plan format is not %d", TaskFormat)
	}
	run := map[uint32]int{} // fragment -> run
	for i := range p.Tasks {
		k := &p.Tasks[i]
		if err := k.validate(); err != nil {
			return err
		}
		if !p.Owns(&k.TaskHeader, i) {
			return errorf(ErrTask, "task %d does not belong to plan %q", i, p.ID)
		}
		if i > 0 && k.Run != p.Tasks[i-1].Run && k.Run != p.Tasks[i-1].Run+1 {
			return errorf(ErrTask, "task %d: runs out of order", i)
		}
		for _, s := range k.Sources {
			if r, ok := run[s.Fragment]; ok && r != k.Run {
				return errorf(ErrTask, "fragment %d is in two runs", s.Fragment)
			}
			run[s.Fragment] = k.Run
		}
	}
	return nil
}

func (k *CompactTask) validate() error {
	if k == nil || k.Format != TaskFormat {
		return errorf(ErrTask, "task format is not %d", TaskFormat)
	}
	if k.TargetRows <= 0 || len(k.Sources) == 0 || k.Run < 0 {
		return errorf(ErrTask, "task %d: no target rows or no sources", k.Seq)
	}
	if k.Rows > uint64(k.TargetRows) {
		return errorf(ErrTask, "task %d: %d rows for destinations of %d", k.Seq, k.Rows, k.TargetRows)
	}
	var live uint64
	for i, s := range k.Sources {
		if s.LiveRows > s.PhysicalRows {
			return errorf(ErrTask, "task %d: fragment %d has more live than physical rows", k.Seq, s.Fragment)
		}
		if i > 0 && s.Fragment <= k.Sources[i-1].Fragment {
			return errorf(ErrTask, "task %d: sources out of order", k.Seq)
		}
		live += s.LiveRows
	}
	if k.Skip > live || k.Rows > live-k.Skip {
		return errorf(ErrTask, "task %d: rows %d+%d past the %d live rows of its sources", k.Seq, k.Skip, k.Rows, live)
	}
	return nil
}

// DecodeCompactPlan, DecodeCompactTask and DecodeCompactResult read the
// JSON encodings (encoding/json of the types), refusing unknown fields and
// other format versions with ErrTask.
func DecodeCompactPlan(b []byte) (*CompactPlan, error) {
	return taskjson.Decode(b, ErrTask, (*CompactPlan).validate)
}

// DecodeCompactTask: see DecodeCompactPlan.
func DecodeCompactTask(b []byte) (*CompactTask, error) {
	return taskjson.Decode(b, ErrTask, (*CompactTask).validate)
}

// DecodeCompactResult: see DecodeCompactPlan.
func DecodeCompactResult(b []byte) (*CompactResult, error) {
	return taskjson.Decode(b, ErrTask, (*CompactResult).validate)
}

func (r *CompactResult) validate() error {
	if r == nil || r.Format != TaskFormat {
		return errorf(ErrTask, "result format is not %d", TaskFormat)
	}
	return nil
}

// written lists the files r names (none for a nil result).
func (r *CompactResult) written() []ResultFile {
	if r == nil {
		return nil
	}
	return r.Files
}
