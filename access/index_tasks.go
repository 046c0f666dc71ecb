package access

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/index/btree"
	"github.com/stablerow/stablerow/table"
)

// Index builds as plan / tasks / commit (the shape of table's compaction
// and recluster tasks), so a scheduler can sort in parallel:
//
//	PlanIndexBuild / PlanIndexOptimize ──► IndexBuildPlan{Tasks} ──JSON──► ExecuteIndexBuild(task)
//	  (reads one version's manifest                                     (scan task: sorts the
//	   and index metadata)                                               (key, address) entries of
//	                                                                     a fragment group into a run;
//	                                                                     remap task: the old index's
//	                                                                     entries through the history;
//	                                                                     either writes files only)
//	                                                                             │
//	CommitIndexBuild(plan, results) ◄──────────────JSON──────────────────────────┘
//	  (merges the runs into the paged BTree (one run is adopted as is),
//	   one atomic index commit)
//
// A run is itself a BTree (btree.Train's files: magic, version and CRCs
// checked on open) over the fragments of its task, so the commit merges
// sorted runs without re-sorting. Every task needs a result (the first of
// several is used), else the commit refuses with table.ErrTask. The index
// records the version the plan read: if the table moved on, fragments
// appended since are simply not covered (the unindexed fallback serves
// them until the next OPTIMIZE INDEX), while a covered fragment rewritten
// or removed since, or an index of the same name changed since, fails the
// commit with table.ErrConflict. Runs not adopted are deleted after the
// commit; the files of a crashed driver or refused commit are orphans
// under _indices/ for Cleanup.

// IndexTaskFormat is the version of the JSON encoding of index build
// plans, tasks and results; decoders refuse any other.
const IndexTaskFormat = 1

// IndexBuildPlan builds (or, with Replace, rebuilds) index Name on Column
// over Fragments of version Version.
type IndexBuildPlan struct {
	table.PlanHeader
	Name   string `json:"name"`
	Column string `json:"column"`
	// Keys are the key columns of an index on several columns or with a
	// DESC or NULLS FIRST column (Column is the first); nil otherwise.
	Keys   []table.IndexKey `json:"keys,omitempty"`
	Unique bool             `json:"unique,omitempty"`
	// Replace is the prefix of the index an optimize supersedes ("" for a
	// new index).
	Replace string `json:"replace,omitempty"`
	// Fragments is the built index's coverage, ascending.
	Fragments []uint32         `json:"fragments"`
	Tasks     []IndexBuildTask `json:"tasks"`
}

// IndexBuildTask writes one run: the entries of Sources (a scan task) or
// the entries of the index at prefix Remap carried to version Version's
// addresses, covering Keep (a remap task).
type IndexBuildTask struct {
	table.TaskHeader
	Name    string             `json:"name"`
	Column  string             `json:"column"`
	Keys    []table.IndexKey   `json:"keys,omitempty"`
	Sources []table.TaskSource `json:"sources,omitempty"`
	Remap   string             `json:"remap,omitempty"`
	Keep    []uint32           `json:"keep,omitempty"`
}

// IndexBuildResult names the run a task wrote.
type IndexBuildResult struct {
	table.ResultHeader
	Run  string `json:"run"`
	Rows uint64 `json:"rows"`
}

// IndexBuildOptions tune the plans.
type IndexBuildOptions struct {
	// Tasks is how many scan tasks the fragments are cut into, by rows
	// (default the layer's workers); fewer when there are fewer fragments.
	Tasks int
}

// indexPrefix is a fresh prefix for an index or a run.
func indexPrefix() string { return "_indices/" + table.NewID() + "/" }

// PlanIndexBuild plans CREATE INDEX name ON column over every fragment of
// snapshot t (see CreateIndex for the naming rules). It writes nothing.
func (l *Layer) PlanIndexBuild(t *table.Table, tableName, name, column string, o IndexBuildOptions) (*IndexBuildPlan, error) {
	return l.PlanIndexBuildKeys(t, tableName, name, []table.IndexKey{{Column: column}}, false, o)
}

// PlanIndexBuildKeys plans CREATE [UNIQUE] INDEX name ON (keys...): an
// index on one column ascending with NULLs last is the one-column BTree;
// any other key list is a composite one (btree.TrainKeys). A unique
// index's build fails if two live rows have equal keys without a NULL
// (CommitIndexBuild); an index on _rowid alone is unique by construction.
func (l *Layer) PlanIndexBuildKeys(t *table.Table, tableName, name string, keys []table.IndexKey, unique bool, o IndexBuildOptions) (*IndexBuildPlan, error) {
	if len(keys) == 0 || len(keys) > 32 {
		return nil, fmt.Errorf("%w: an index has 1 to 32 key columns, not %d", ErrIndex, len(keys))
	}
	keys = slices.Clone(keys)
	names := make([]string, len(keys))
	for i, k := range keys {
		ci := t.ColumnIndex(k.Column)
		if ci < 0 {
			return nil, fmt.Errorf("%w: table %s has no column %q", ErrIndex, tableName, k.Column)
		}
		keys[i].Column = t.Schema().Field(ci).Name
		names[i] = strings.TrimPrefix(keys[i].Column, "_")
	}
	column := keys[0].Column
	if len(keys) == 1 && !keys[0].Desc && !keys[0].NullsFirst {
		keys = nil // the one-column format
	}
	if name == "" {
		name = tableName + "_" + strings.Join(names, "_") + "_idx"
	}
	if t.Index(name) != nil {
		return nil, fmt.Errorf("%w: %w: %q on %s", ErrIndex, ErrIndexExists, name, tableName)
	}
	p := &IndexBuildPlan{PlanHeader: newIndexPlanHeader(t), Name: name, Column: column, Keys: keys,
		Unique: unique || column == table.RowID && len(keys) <= 1, Fragments: slices.Sorted(slices.Values(t.FragmentIDs()))}
	if err := l.addScanTasks(p, t, p.Fragments, o); err != nil {
		return nil, err
	}
	if len(p.Tasks) == 0 {
		// An empty table: one task writes the empty index.
		p.Tasks = append(p.Tasks, p.task(nil))
	}
	return p, nil
}

// PlanIndexOptimize plans OPTIMIZE INDEX name of snapshot t: a remap task
// carries the index's entries through every pending rewrite (dropping
// dead rows) and scan tasks add the fragments it does not cover.
func (l *Layer) PlanIndexOptimize(ctx context.Context, t *table.Table, name string, o IndexBuildOptions) (*IndexBuildPlan, error) {
	m := t.Index(name)
	if m == nil {
		return nil, fmt.Errorf("%w: no index %q", ErrIndex, name)
	}
	r, err := l.Resolver(ctx, t, m)
	if err != nil {
		return nil, err
	}
	cov := r.Coverage()
	var keep, add []uint32
	for _, id := range slices.Sorted(slices.Values(t.FragmentIDs())) {
		if cov.Fragment(id) != NotCovered {
			keep = append(keep, id)
		} else {
			add = append(add, id)
		}
	}
	p := &IndexBuildPlan{PlanHeader: newIndexPlanHeader(t), Name: m.Name, Column: m.Column, Keys: m.Keys,
		Unique: m.Unique, Replace: m.Prefix, Fragments: slices.Sorted(slices.Values(t.FragmentIDs()))}
	k := p.task(nil)
	k.Remap, k.Keep = m.Prefix, keep
	p.Tasks = append(p.Tasks, k)
	if err := l.addScanTasks(p, t, add, o); err != nil {
		return nil, err
	}
	return p, nil
}

func newIndexPlanHeader(t *table.Table) table.PlanHeader {
	return table.PlanHeader{Format: IndexTaskFormat, ID: table.NewID(), Version: t.Version()}
}

func (p *IndexBuildPlan) task(srcs []table.TaskSource) IndexBuildTask {
	return IndexBuildTask{TaskHeader: p.Task(len(p.Tasks)), Name: p.Name, Column: p.Column, Keys: p.Keys, Sources: srcs}
}

// addScanTasks cuts frags into o.Tasks groups of adjacent fragments of
// about equal physical rows, one scan task each.
func (l *Layer) addScanTasks(p *IndexBuildPlan, t *table.Table, frags []uint32, o IndexBuildOptions) error {
	n := o.Tasks
	if n <= 0 {
		n = l.Workers()
	}
	n = min(n, len(frags))
	if n == 0 {
		return nil
	}
	srcs := make([]table.TaskSource, len(frags))
	var total uint64
	for i, id := range frags {
		f := t.Manifest().Fragment(id)
		d, err := table.DeletionDigest(f.Deletions)
		if err != nil {
			return err
		}
		srcs[i] = table.TaskSource{Fragment: id, DataFile: f.DataFile, PhysicalRows: f.PhysicalRows, LiveRows: f.LiveRows(), DeletionDigest: d}
		total += f.PhysicalRows
	}
	lo := 0
	var seen uint64
	for j := range n {
		hi := lo
		// Take fragments until this group reaches its share of the rows,
		// leaving at least one fragment for each group after it.
		goal := total * uint64(j+1) / uint64(n)
		for hi < len(srcs)-(n-1-j) && (hi == lo || seen+srcs[hi].PhysicalRows <= goal) {
			seen += srcs[hi].PhysicalRows
			hi++
		}
		if j == n-1 {
			hi = len(srcs)
		}
		p.Tasks = append(p.Tasks, p.task(slices.Clone(srcs[lo:hi])))
		lo = hi
	}
	return nil
}

// ExecuteIndexBuild writes the run of task k, reading the version the task
// names (t may be any snapshot of the same table). It never commits;
// running it again writes another run with the same entries.
func (l *Layer) ExecuteIndexBuild(ctx context.Context, t *table.Table, k *IndexBuildTask) (*IndexBuildResult, error) {
	if err := k.validate(); err != nil {
		return nil, err
	}
	s, err := t.AtVersion(ctx, k.Version)
	if err != nil {
		return nil, err
	}
	prefix := indexPrefix()
	opt := btree.Options{Mem: l.mem}
	var run *btree.Index
	if k.Remap != "" {
		run, err = l.remapRun(ctx, s, k, prefix, opt)
	} else {
		run, err = l.scanRun(ctx, s, k, prefix, opt)
	}
	if err != nil {
		return nil, err
	}
	return &IndexBuildResult{ResultHeader: k.Result(), Run: prefix, Rows: uint64(run.Stats().Rows)}, nil
}

// scanRun sorts the entries of k's sources into a run.
func (l *Layer) scanRun(ctx context.Context, s *table.Table, k *IndexBuildTask, prefix string, opt btree.Options) (*btree.Index, error) {
	if _, err := s.TaskFragments(k.Sources); err != nil {
		return nil, err
	}
	ids := make([]uint32, len(k.Sources))
	for i, ts := range k.Sources {
		ids[i] = ts.Fragment
	}
	cols := []string{k.Column}
	if k.Keys != nil {
		cols = cols[:0]
		for _, c := range k.Keys {
			cols = append(cols, c.Column)
		}
	}
	for _, c := range cols {
		if s.ColumnIndex(c) < 0 {
			return nil, fmt.Errorf("%w: table has no column %q", table.ErrTask, c)
		}
	}
	rdr, err := s.ScanColumns(ctx, append(slices.Clone(cols), table.RowAddr), ids, l.mem)
	if err != nil {
		return nil, err
	}
	defer rdr.Release()
	meta := btree.Meta{Column: k.Column, FragmentIDs: ids, DatasetVersion: k.Version, Keys: btreeKeys(k.Keys)}
	var run *btree.Index
	if k.Keys != nil {
		types := make([]arrow.DataType, len(cols))
		for i := range types {
			types[i] = rdr.Schema().Field(i).Type
		}
		run, err = btree.TrainKeys(ctx, s.Store(), prefix, types, rdr, meta, opt)
	} else {
		run, err = btree.Train(ctx, s.Store(), prefix, rdr.Schema().Field(0).Type, rdr, meta, opt)
	}
	if err != nil {
		removeIndexFiles(ctx, s, prefix)
		return nil, fmt.Errorf("%w: build %s: %w", ErrIndex, k.Name, err)
	}
	return run, nil
}

// remapRun carries the entries of the index k.Remap (as of k.Version)
// through the fragment reuse history into a run covering k.Keep.
func (l *Layer) remapRun(ctx context.Context, s *table.Table, k *IndexBuildTask, prefix string, opt btree.Options) (*btree.Index, error) {
	m := s.Index(k.Name)
	if m == nil || m.Prefix != k.Remap {
		return nil, fmt.Errorf("%w: version %d has no index %q at %s", table.ErrTask, s.Version(), k.Name, k.Remap)
	}
	r, err := l.Resolver(ctx, s, m)
	if err != nil {
		return nil, err
	}
	cov := r.Coverage()
	translate := func(in, out []uint64, live []bool) error {
		if r.hist != nil {
			if err := r.hist.Translate(in, out, live); err != nil {
				return err
			}
		} else {
			copy(out, in)
			for i := range live {
				live[i] = true
			}
		}
		ok := make([]bool, len(live))
		cov.Valid(out[:len(live)], ok)
		for i := range live {
			live[i] = live[i] && ok[i]
		}
		return nil
	}
	keep := k.Keep
	if keep == nil {
		keep = []uint32{} // Remap's nil means "the old list"
	}
	run, err := r.ix.Remap(ctx, s.Store(), prefix, translate, keep, k.Version, opt)
	if err != nil {
		removeIndexFiles(ctx, s, prefix)
		return nil, fmt.Errorf("%w: remap %s: %w", ErrIndex, k.Name, err)
	}
	return run, nil
}

// CommitIndexBuild merges the runs of plan's tasks into the index and
// commits it on top of snapshot t (see the conflict rules above).
func (l *Layer) CommitIndexBuild(ctx context.Context, t *table.Table, plan *IndexBuildPlan, results []*IndexBuildResult) (*table.Table, error) {
	if err := plan.validate(); err != nil {
		return nil, err
	}
	if err := plan.CheckSnapshot(t); err != nil {
		return nil, err
	}
	byTask, err := table.ResultsByTask(&plan.PlanHeader, len(plan.Tasks), results, (*IndexBuildResult).validate)
	if err != nil {
		return nil, err
	}
	if err := table.AllResults(&plan.PlanHeader, byTask); err != nil {
		return nil, err
	}
	if err := checkIndexRebase(ctx, t, plan); err != nil {
		return nil, err
	}
	opt := btree.Options{Mem: l.mem}
	runs := make([]*btree.Index, len(byTask))
	for i, r := range byTask {
		run, err := btree.Open(ctx, t.Store(), r.Run, opt)
		if err != nil {
			return nil, fmt.Errorf("%w: run of task %d: %w", ErrIndex, i, err)
		}
		if err := checkRun(&plan.Tasks[i], r, run); err != nil {
			return nil, err
		}
		runs[i] = run
	}
	prefix, ix := byTask[0].Run, runs[0]
	if len(runs) > 1 || !slices.Equal(ix.Meta().FragmentIDs, plan.Fragments) {
		prefix = indexPrefix()
		var err error
		meta := btree.Meta{Column: plan.Column, FragmentIDs: plan.Fragments, DatasetVersion: plan.Version, Keys: btreeKeys(plan.Keys)}
		if ix, err = btree.Merge(ctx, t.Store(), prefix, runs, meta, opt); err != nil {
			removeIndexFiles(ctx, t, prefix)
			return nil, fmt.Errorf("%w: merge %s: %w", ErrIndex, plan.Name, err)
		}
	}
	if plan.Unique && plan.Replace == "" && plan.Column != table.RowID {
		if err := checkUnique(ctx, ix, plan); err != nil {
			if prefix != byTask[0].Run {
				removeIndexFiles(ctx, t, prefix)
			}
			return nil, err
		}
	}
	meta := &table.IndexMeta{Name: plan.Name, Column: plan.Column, Kind: "btree", Prefix: prefix,
		Fragments: roaring.BitmapOf(plan.Fragments...), DatasetVersion: plan.Version, Unique: plan.Unique, Keys: plan.Keys}
	nt, err := t.CommitIndex(ctx, meta, plan.Replace != "")
	if err != nil {
		if prefix != byTask[0].Run && notCommitted(err) {
			removeIndexFiles(ctx, t, prefix)
		}
		return nil, err
	}
	l.remember(t.Store(), prefix, ix)
	for _, r := range results {
		if r != nil && r.Run != prefix {
			removeIndexFiles(ctx, t, r.Run)
		}
	}
	if plan.Replace != "" {
		return nt.TrimHistory(ctx)
	}
	return nt, nil
}

// checkIndexRebase applies the commit rules to a table that moved on since
// the plan's version: every covered fragment must still be the one read,
// in t and in the newest version (an index commit itself commutes with
// everything but another commit of the same index, so this is where a
// rewrite of covered rows is caught).
func checkIndexRebase(ctx context.Context, t *table.Table, plan *IndexBuildPlan) error {
	// Latest, not LatestVersion: the newest version number may be a
	// transaction's claim that is no version (yet, or ever).
	t, err := t.Latest(ctx)
	if err != nil {
		return err
	}
	cur := t.Index(plan.Name)
	switch {
	case plan.Replace == "" && cur != nil:
		return fmt.Errorf("%w: %w: %q was created since version %d", ErrIndex, ErrIndexExists, plan.Name, plan.Version)
	case plan.Replace != "" && (cur == nil || cur.Prefix != plan.Replace):
		return fmt.Errorf("%w: index %q was changed or dropped since version %d", table.ErrConflict, plan.Name, plan.Version)
	}
	if plan.Version == t.Version() {
		return nil
	}
	base, err := t.AtVersion(ctx, plan.Version)
	if err != nil {
		return err
	}
	for _, id := range plan.Fragments {
		was, now := base.Manifest().Fragment(id), t.Manifest().Fragment(id)
		if was == nil {
			return fmt.Errorf("%w: plan names fragment %d, not in version %d", table.ErrTask, id, plan.Version)
		}
		if now == nil || now.DataFile != was.DataFile {
			return fmt.Errorf("%w: fragment %d was rewritten or removed after version %d", table.ErrConflict, id, plan.Version)
		}
	}
	return nil
}

// checkRun: the run is the one task k wrote.
func checkRun(k *IndexBuildTask, r *IndexBuildResult, run *btree.Index) error {
	m := run.Meta()
	want := k.Keep
	if k.Remap == "" {
		want = make([]uint32, len(k.Sources))
		for i, s := range k.Sources {
			want[i] = s.Fragment
		}
	}
	if m.Column != k.Column || m.DatasetVersion != k.Version || !slices.Equal(m.FragmentIDs, want) || !slices.Equal(m.Keys, btreeKeys(k.Keys)) {
		return fmt.Errorf("%w: run %s is not task %d's", table.ErrTask, r.Run, k.Seq)
	}
	if uint64(run.Stats().Rows) != r.Rows {
		return fmt.Errorf("%w: run %s has %d entries, its result says %d", table.ErrConservation, r.Run, run.Stats().Rows, r.Rows)
	}
	return nil
}

// removeIndexFiles deletes an index's or a run's files (best effort: a
// leftover is an orphan for Cleanup).
func removeIndexFiles(ctx context.Context, t *table.Table, prefix string) {
	ps, err := t.Store().List(ctx, prefix)
	if err != nil {
		return
	}
	for _, p := range ps {
		_ = t.Store().Delete(ctx, p)
	}
}
