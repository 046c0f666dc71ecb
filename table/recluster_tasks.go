package table

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/rowmap"
)

// Reclustering as plan / tasks / commit (the shape of compact_tasks.go):
//
//	PlanRecluster ──► ReclusterPlan{Bounds, Rows, Tasks} ──JSON──► ExecuteRecluster(task)
//	  (reads one version's keys,                                  (scans every source, keeps
//	   fixes each destination's                                    the rows of its destinations,
//	   first key and row count)                                    writes one file each; no commit)
//	                                                                        │
//	CommitRecluster(plan, results) ◄───────────────JSON─────────────────────┘
//	  (relabels the sources from the bounds, checks every count, one atomic
//	   stable-partition rewrite with its rowmap; the table's conflict rules)
//
// The planner computes the destinations exactly as the single pass did
// (partitionLabels over all live keys) and records them as key ranges:
// destination j holds the keys from Bounds[j] up to Bounds[j+1]. A task
// owns a contiguous range of destinations; it reads every source (rows of
// any key may be in any source) and writes each of its destinations as
// one file, rows in source order, so running a task twice writes the same
// rows. Tasks therefore trade reads for parallelism: T tasks read the
// sources T times and write them once. A recluster is one transition, so
// CommitRecluster needs a result for every task and refuses (ErrTask)
// otherwise; the results' files are then orphans for Cleanup, and the
// table stays at its last version. Of two results for one task the first
// is used. The commit rereads the key column to label every source row
// for the rowmap and checks each result's and each destination's row
// count against the plan (ErrConservation), so no row id is lost or
// written twice.

// ReclusterPlan is the output of PlanRecluster.
type ReclusterPlan struct {
	PlanHeader
	Key             string       `json:"key"`
	DeferIndexRemap bool         `json:"defer_index_remap,omitempty"`
	Sources         []TaskSource `json:"sources"`
	// Bounds[j] is the first key of destination j; Rows[j] its live rows.
	Bounds []KeyBound      `json:"bounds"`
	Rows   []uint64        `json:"rows"`
	Tasks  []ReclusterTask `json:"tasks"`
}

// ReclusterTask writes destinations First .. First+len(Bounds)-1 of its
// plan: the live rows of Sources whose keys fall in their ranges (Upper,
// when set, is the first key of the next task's first destination).
type ReclusterTask struct {
	TaskHeader
	Key     string       `json:"key"`
	Sources []TaskSource `json:"sources"`
	First   int          `json:"first"`
	Bounds  []KeyBound   `json:"bounds"`
	Upper   *KeyBound    `json:"upper,omitempty"`
	Rows    []uint64     `json:"rows"`
}

// ReclusterResult is what ExecuteRecluster wrote for one task: one file
// per destination of the task, in destination order.
type ReclusterResult struct {
	ResultHeader
	Files []ResultFile `json:"files"`
}

// PlanRecluster plans Recluster(key, o) of t: it reads the key column of
// the sources (not the other columns) and writes nothing. The plan has
// o.Tasks tasks (default o.Workers, at least 1), fewer when there are
// fewer destinations; a plan with no tasks (no live rows) commits the
// sources' removal. It returns nil when there are no sources.
func (t *Table) PlanRecluster(ctx context.Context, key string, o ReclusterOptions) (*ReclusterPlan, error) {
	o = o.withDefaults()
	ci := t.ColumnIndex(key)
	if ci < 0 {
		return nil, errorf(ErrInvalidArgument, "recluster: unknown column %q", key)
	}
	key = t.Schema().Field(ci).Name
	srcs, err := t.reclusterSources(o.Fragments)
	if err != nil || len(srcs) == 0 {
		return nil, err
	}
	p := &ReclusterPlan{PlanHeader: PlanHeader{Format: TaskFormat, ID: NewID(), Version: t.Version()}, Key: key, DeferIndexRemap: o.DeferIndexRemap}
	var live uint64
	for _, f := range srcs {
		d, err := DeletionDigest(f.Deletions)
		if err != nil {
			return nil, err
		}
		p.Sources = append(p.Sources, TaskSource{Fragment: f.ID, DataFile: f.DataFile,
			PhysicalRows: f.PhysicalRows, LiveRows: f.LiveRows(), DeletionDigest: d})
		live += f.LiveRows()
	}
	want := o.Destinations
	if want <= 0 {
		want = max(1, int((live+uint64(t.opts.MaxRowsPerFragment)-1)/uint64(t.opts.MaxRowsPerFragment)))
	}
	want = min(want, rowmap.MaxDestinations)
	keys, err := t.readKeys(ctx, srcs, key, o.Mem)
	if err != nil {
		return nil, err
	}
	if keys == nil {
		if live != 0 {
			return nil, errorf(ErrConservation, "recluster read no keys for %d live rows", live)
		}
		return p, nil
	}
	defer keys.Release()
	if uint64(keys.Len()) != live {
		return nil, errorf(ErrConservation, "recluster read %d keys for %d live rows", keys.Len(), live)
	}
	labels, m, err := partitionLabels(keys, want)
	if err != nil {
		return nil, err
	}
	img, err := keyImages(keys)
	if err != nil {
		return nil, err
	}
	// Each destination's bound is its smallest key: destinations hold
	// contiguous key ranges, so the bounds increase (checked, since the
	// images must order keys as partitionLabels did).
	first := make([]keyImage, m)
	seen := make([]bool, m)
	p.Rows = make([]uint64, m)
	for i, l := range labels {
		k := img(i)
		if !seen[l] || compareImages(k, first[l]) < 0 {
			first[l], seen[l] = k, true
		}
		p.Rows[l]++
	}
	p.Bounds = make([]KeyBound, m)
	for j := range first {
		p.Bounds[j] = first[j].bound()
	}
	if !strictlyIncreasing(p.Bounds, nil) {
		return nil, errorf(ErrConservation, "recluster: destination key ranges of %s overlap", key)
	}
	n := min(max(o.Tasks, 1), m)
	for j := range n {
		lo, hi := j*m/n, (j+1)*m/n
		k := ReclusterTask{TaskHeader: p.Task(j), Key: key,
			Sources: p.Sources, First: lo, Bounds: p.Bounds[lo:hi], Rows: p.Rows[lo:hi]}
		if hi < m {
			k.Upper = &p.Bounds[hi]
		}
		p.Tasks = append(p.Tasks, k)
	}
	return p, nil
}

func (o ReclusterOptions) withDefaults() ReclusterOptions {
	if o.Mem == nil {
		o.Mem = memory.DefaultAllocator
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	if o.Tasks <= 0 {
		o.Tasks = o.Workers
	}
	return o
}

// reclusterSources are the fragments ids names (nil: every fragment with
// rows), in id order.
func (t *Table) reclusterSources(ids []uint32) ([]*Fragment, error) {
	if ids == nil {
		var srcs []*Fragment
		for _, f := range t.m.Fragments {
			if f.PhysicalRows > 0 {
				srcs = append(srcs, f)
			}
		}
		return srcs, nil
	}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(ids) {
		return nil, errorf(ErrInvalidArgument, "recluster: fragment listed twice")
	}
	return t.selectFragments(sorted)
}

// ExecuteRecluster writes the destination files of task k, reading the
// version the task names (t may be any snapshot of the same table). It
// never commits; running it again writes new files with the same rows.
func (t *Table) ExecuteRecluster(ctx context.Context, k *ReclusterTask, mem memory.Allocator) (_ *ReclusterResult, err error) {
	if err := k.validate(); err != nil {
		return nil, err
	}
	ctx, end := holdIntent(ctx, t.st, "recluster task")
	defer end(&err)
	s, srcs, mem, err := t.openTask(ctx, &k.TaskHeader, k.Sources, mem)
	if err != nil {
		return nil, err
	}
	files, err := s.writeKeyRanges(ctx, srcs, k, mem)
	if err != nil {
		return nil, err
	}
	return &ReclusterResult{ResultHeader: k.Result(), Files: resultFiles(files)}, nil
}

// writeKeyRanges scans srcs once and writes each of k's destinations as
// one file.
func (t *Table) writeKeyRanges(ctx context.Context, srcs []*Fragment, k *ReclusterTask, mem memory.Allocator) ([]newFragment, error) {
	cols := t.userColumns()
	nUser := len(cols)
	kc := slices.Index(cols, k.Key)
	if kc < 0 {
		if t.ColumnIndex(k.Key) < 0 {
			return nil, errorf(ErrTask, "task %d: table has no column %q", k.Seq, k.Key)
		}
		kc = len(cols)
		cols = append(cols, k.Key)
	}
	ranges := newKeyRanges(k.First, k.Bounds, k.Upper)
	fws := make([]*fragmentWriter, len(k.Bounds))
	for j := range fws {
		fws[j] = t.newFragmentWriter(ctx, mem)
		fws[j].maxRows = int(min(k.Rows[j], uint64(maxFragmentRows)))
	}
	abort := func() {
		for _, fw := range fws {
			fw.abort()
			for _, nf := range fw.out {
				_ = t.st.Delete(ctx, nf.dataFile)
			}
		}
	}
	sc, err := t.Scan(ctx, ScanOptions{Columns: cols, Fragments: fragmentIDs(srcs), Mem: mem})
	if err != nil {
		return nil, err
	}
	got := make([]uint64, len(fws))
	var labels []int32
	for sc.Next() {
		b := sc.RecordBatch()
		// Rows not this task's are labelled -1: routeBatch drops them.
		if labels, err = ranges.label(b.Column(kc), labels[:0]); err != nil {
			break
		}
		for _, l := range labels {
			if l < 0 {
				continue
			}
			got[l]++
			if got[l] > k.Rows[l] {
				err = errorf(ErrConservation, "recluster task %d: destination %d has more than the planned %d rows", k.Seq, k.First+int(l), k.Rows[l])
				break
			}
		}
		if err != nil {
			break
		}
		if nUser < int(b.NumCols()) {
			b = array.NewRecordBatch(arrow.NewSchema(b.Schema().Fields()[:nUser], nil), b.Columns()[:nUser], b.NumRows())
			err = routeBatch(ctx, b, labels, fws, mem)
			b.Release()
		} else {
			err = routeBatch(ctx, b, labels, fws, mem)
		}
		if err != nil {
			break
		}
	}
	if err == nil {
		err = sc.Err()
	}
	sc.Release()
	if err == nil && !slices.Equal(got, k.Rows) {
		j := firstDiff(got, k.Rows)
		err = errorf(ErrConservation, "recluster task %d: destination %d has %d rows, the plan %d", k.Seq, k.First+j, got[j], k.Rows[j])
	}
	if err != nil {
		abort()
		return nil, err
	}
	var out []newFragment
	for j, fw := range fws {
		nf, err := fw.finish()
		if err != nil {
			abort()
			return nil, err
		}
		if len(nf) != 1 || nf[0].rows != k.Rows[j] {
			abort()
			return nil, errorf(ErrConservation, "recluster destination %d wrote %d files", k.First+j, len(nf))
		}
		out = append(out, nf[0])
	}
	return out, nil
}

// maxFragmentRows is the most rows one destination file holds (row
// offsets within a fragment are uint32).
const maxFragmentRows = 1<<32 - 1

// CommitRecluster commits the results of plan's tasks as one stable
// partition rewrite on top of t's table. Every task needs a result (the
// first of several is used); a source replaced since the plan was read
// fails with ErrConflict, deletes committed since are carried over onto
// the destinations, appends are rebased (the new fragments are simply not
// reclustered).
func (t *Table) CommitRecluster(ctx context.Context, plan *ReclusterPlan, results []*ReclusterResult) (*Table, error) {
	g, err := t.reclusterGroup(ctx, plan, results)
	if err != nil {
		return nil, err
	}
	for _, f := range g.sources {
		if now := t.m.Fragment(f.ID); now == nil || now.DataFile != f.DataFile {
			return nil, errorf(ErrConflict, "fragment %d was rewritten or removed after version %d", f.ID, plan.Version)
		}
	}
	return t.commitRewrite(ctx, []*rewriteGroup{g}, plan.DeferIndexRemap, "recluster by "+plan.Key)
}

// reclusterGroup checks results against plan and the version it read and
// turns them into the rewrite group, labelling every live source row.
func (t *Table) reclusterGroup(ctx context.Context, plan *ReclusterPlan, results []*ReclusterResult) (*rewriteGroup, error) {
	if err := plan.validate(); err != nil {
		return nil, err
	}
	if err := plan.CheckSnapshot(t); err != nil {
		return nil, err
	}
	byTask, err := ResultsByTask(&plan.PlanHeader, len(plan.Tasks), results, (*ReclusterResult).validate)
	if err != nil {
		return nil, err
	}
	if err := AllResults(&plan.PlanHeader, byTask); err != nil {
		return nil, err
	}
	base, err := t.atVersion(ctx, plan.Version)
	if err != nil {
		return nil, err
	}
	srcs, err := base.taskSources(plan.Sources)
	if err != nil {
		return nil, err
	}
	g := &rewriteGroup{kind: TransitionStablePartition, sources: srcs}
	var ids []uint64
	for _, f := range srcs {
		ids = liveIDs(ids, f)
	}
	if len(plan.Bounds) == 0 {
		// Nothing live: the sources just go away.
		g.kind = TransitionOrdered
		return g, nil
	}
	if g.labels, err = base.keyLabels(ctx, srcs, plan); err != nil {
		return nil, err
	}
	if len(g.labels) != len(ids) {
		return nil, errorf(ErrConservation, "recluster read %d keys for %d live rows", len(g.labels), len(ids))
	}
	for i := range plan.Tasks {
		k, r := &plan.Tasks[i], byTask[i]
		if len(r.Files) != len(k.Bounds) {
			return nil, errorf(ErrConservation, "task %d: %d result files for %d destinations", k.Seq, len(r.Files), len(k.Bounds))
		}
		for j, f := range r.Files {
			if f.Rows != k.Rows[j] || f.DataFile == "" || f.BatchRows == 0 {
				return nil, errorf(ErrConservation, "task %d: destination %d has %d rows, the plan %d", k.Seq, k.First+j, f.Rows, k.Rows[j])
			}
			g.dests = append(g.dests, newFragment{dataFile: f.DataFile, file: f.File, rows: f.Rows, batchRows: f.BatchRows})
		}
	}
	// Destination j's ids are the ids labelled j, in source order.
	perDest := make([][]uint64, len(g.dests))
	for i, l := range g.labels {
		perDest[l] = append(perDest[l], ids[i])
	}
	for j := range g.dests {
		if err := assignIDs(g.dests[j:j+1], perDest[j]); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// keyLabels labels each live row of srcs with its destination under
// plan's bounds, checking the destinations' sizes against the plan.
func (t *Table) keyLabels(ctx context.Context, srcs []*Fragment, plan *ReclusterPlan) ([]uint16, error) {
	keys, err := t.readKeys(ctx, srcs, plan.Key, memory.DefaultAllocator)
	if err != nil || keys == nil {
		return nil, err
	}
	defer keys.Release()
	ranges := newKeyRanges(0, plan.Bounds, nil)
	local, err := ranges.label(keys, make([]int32, 0, keys.Len()))
	if err != nil {
		return nil, err
	}
	labels := make([]uint16, len(local))
	counts := make([]uint64, len(plan.Bounds))
	for i, l := range local {
		if l < 0 {
			return nil, errorf(ErrConservation, "recluster: row %d's key is below the first destination", i)
		}
		labels[i] = uint16(l)
		counts[l]++
	}
	if !slices.Equal(counts, plan.Rows) {
		j := firstDiff(counts, plan.Rows)
		return nil, errorf(ErrConservation, "recluster: destination %d holds %d rows of the sources, the plan %d", j, counts[j], plan.Rows[j])
	}
	return labels, nil
}

// firstDiff is the first index where a and b (of one length) differ.
func firstDiff(a, b []uint64) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return len(a) - 1
}

// written lists the files r names (none for a nil result).
func (r *ReclusterResult) written() []ResultFile {
	if r == nil {
		return nil
	}
	return r.Files
}
