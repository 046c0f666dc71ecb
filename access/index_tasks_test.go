package access

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/index/btree"
	"github.com/stablerow/stablerow/internal/arrowtest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

var taskTableOpts = table.Options{MaxRowsPerFragment: 100, BatchRows: 16}

// buildFixture: 7 fragments of k values (1000 distinct at most), some rows
// deleted.
func buildFixture(t *testing.T) *table.Table {
	t.Helper()
	ctx := context.Background()
	tb, err := table.Create(ctx, store.NewMemory(), schema, taskTableOpts)
	require.NoError(t, err)
	tb = appendRows(t, tb, 0, 400)
	tb = appendRows(t, tb, 400, 250)
	tb = appendRows(t, tb, 650, 30)
	tb, _, err = tb.DeleteRowIDs(ctx, []uint64{3, 99, 100, 401, 677})
	require.NoError(t, err)
	return tb
}

// singlePass is the oracle: the index as one btree.TrainFrom over every
// fragment of snapshot tb builds it.
func singlePass(t *testing.T, tb *table.Table, column string) *btree.Index {
	t.Helper()
	ix, err := btree.TrainFrom(context.Background(), store.NewMemory(), "oracle/", tb, column, btree.Options{PageRows: 64})
	require.NoError(t, err)
	return ix
}

// requireSameEntries: for every key of the column's domain, both indexes
// hold the same addresses, and the same null addresses.
func requireSameEntries(t *testing.T, want, got *btree.Index, column string, tb *table.Table) {
	t.Helper()
	ctx := context.Background()
	require.Equal(t, want.Stats().Rows, got.Stats().Rows)
	var keys []any
	if column == table.RowID {
		for id := range tb.Manifest().NextRowID {
			keys = append(keys, id)
		}
	} else {
		for k := range int64(1000) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		a, err := want.SearchEqual(ctx, k)
		require.NoError(t, err)
		b, err := got.SearchEqual(ctx, k)
		require.NoError(t, err)
		require.True(t, a.Equals(b), "key %v: %v, want %v", k, b.ToArray(), a.ToArray())
	}
	a, err := want.SearchIsNull(ctx)
	require.NoError(t, err)
	b, err := got.SearchIsNull(ctx)
	require.NoError(t, err)
	require.True(t, a.Equals(b))
}

// requireTakeAnswers: through the _rowid index of tb (resolver: probe,
// history, validity), every row id ever assigned is answered exactly as
// the table's row id sequences locate it; ids the index does not cover
// must be on fragments it reports uncovered.
func requireTakeAnswers(t *testing.T, l *Layer, tb *table.Table, name string) {
	t.Helper()
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	r, err := l.Resolver(ctx, tb, tb.Index(name))
	require.NoError(t, err)
	n := tb.Manifest().NextRowID
	b := array.NewUint64Builder(mem)
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i)
	}
	b.AppendValues(ids, nil)
	keys := b.NewArray()
	b.Release()
	defer keys.Release()
	res, err := r.Probe(ctx, keys)
	require.NoError(t, err)
	want, live := tb.Locate(ids)
	out, ok := make([]uint64, n), make([]bool, n)
	tl := make([]bool, n)
	if rm := r.Remapper(); rm != nil {
		require.NoError(t, rm.Translate(res.Addrs, out, tl))
	} else {
		copy(out, res.Addrs)
		for i := range tl {
			tl[i] = true
		}
	}
	r.Valid(out, ok)
	uncovered := r.Uncovered()
	for i, id := range ids {
		answered := res.Found[i] && tl[i] && ok[i]
		if answered {
			require.True(t, live[i], "id %d answered but not live", id)
			require.Equal(t, want[i], out[i], "id %d", id)
		} else if live[i] {
			require.Contains(t, uncovered, uint32(want[i]>>32), "live id %d unanswered on a covered fragment", id)
		}
	}
}

func roundTripJSON[T any](t *testing.T, v *T, decode func([]byte) (*T, error)) *T {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	got, err := decode(b)
	require.NoError(t, err)
	return got
}

// runPlan executes every task of plan with layer l on snapshot tb.
func runPlan(t *testing.T, l *Layer, tb *table.Table, plan *IndexBuildPlan) []*IndexBuildResult {
	t.Helper()
	var rs []*IndexBuildResult
	for i := range plan.Tasks {
		r, err := l.ExecuteIndexBuild(context.Background(), tb, &plan.Tasks[i])
		require.NoError(t, err)
		rs = append(rs, r)
	}
	return rs
}

// TestIndexBuildTasksMatchSinglePass: CREATE INDEX with 1, 2 and 4 workers
// and the plan / task / commit path through JSON with "remote" workers
// (own layer, table opened from the store) give the entries of one
// single-pass build, and take answers through the _rowid index are the
// row id sequences'.
func TestIndexBuildTasksMatchSinglePass(t *testing.T) {
	ctx := context.Background()
	mem := arrowtest.Mem(t)
	for _, column := range []string{"k", table.RowID} {
		for _, mode := range []string{"workers=1", "workers=2", "workers=4", "json"} {
			tb := buildFixture(t)
			oracle := singlePass(t, tb, column)
			l := New(mem)
			var nt *table.Table
			var err error
			if mode == "json" {
				plan, err := l.PlanIndexBuild(tb, "t", "ix", column, IndexBuildOptions{Tasks: 3})
				require.NoError(t, err)
				require.Len(t, plan.Tasks, 3)
				plan = roundTripJSON(t, plan, DecodeIndexBuildPlan)
				var rs []*IndexBuildResult
				for i := range plan.Tasks {
					k := roundTripJSON(t, &plan.Tasks[i], DecodeIndexBuildTask)
					worker, err := table.Open(ctx, tb.Store(), taskTableOpts)
					require.NoError(t, err)
					r, err := New(mem).ExecuteIndexBuild(ctx, worker, k)
					require.NoError(t, err)
					rs = append(rs, roundTripJSON(t, r, DecodeIndexBuildResult))
				}
				nt, err = l.CommitIndexBuild(ctx, tb, plan, rs)
				require.NoError(t, err)
			} else {
				l.SetWorkers(int(mode[len(mode)-1] - '0'))
				nt, err = l.CreateIndex(ctx, tb, "t", "ix", column)
			}
			require.NoError(t, err, mode)
			m := nt.Index("ix")
			require.Equal(t, tb.Version(), m.DatasetVersion)
			require.Equal(t, tb.FragmentIDs(), m.Fragments.ToArray())
			require.Equal(t, column == table.RowID, m.Unique)
			got, err := btree.Open(ctx, nt.Store(), m.Prefix, btree.Options{})
			require.NoError(t, err)
			requireSameEntries(t, oracle, got, column, nt)
			if column == table.RowID {
				requireTakeAnswers(t, l, nt, "ix")
				require.Empty(t, (&Layer{}).uncoveredOf(t, l, nt, "ix"))
			}
			require.Empty(t, indexOrphans(t, nt), mode)
		}
	}
}

// uncoveredOf lists the fragments index name does not cover in tb.
func (*Layer) uncoveredOf(t *testing.T, l *Layer, tb *table.Table, name string) []uint32 {
	t.Helper()
	r, err := l.Resolver(context.Background(), tb, tb.Index(name))
	require.NoError(t, err)
	return r.Uncovered()
}

// indexOrphans are the files under _indices/ that no version's index names.
func indexOrphans(t *testing.T, tb *table.Table) []string {
	t.Helper()
	ctx := context.Background()
	vs, err := table.Versions(ctx, tb.Store())
	require.NoError(t, err)
	named := map[string]bool{}
	for _, v := range vs {
		s, err := table.OpenVersion(ctx, tb.Store(), v.Version, taskTableOpts)
		require.NoError(t, err)
		for _, m := range s.Indexes() {
			named[m.Prefix] = true
		}
	}
	all, err := tb.Store().List(ctx, "_indices/")
	require.NoError(t, err)
	var out []string
	for _, p := range all {
		if !named[p[:strings.LastIndex(p, "/")+1]] {
			out = append(out, p)
		}
	}
	return out
}

// staleFixture: a _rowid index built over fragments 0-3, then appends,
// deletes, reclusters (one of covered rows only, one mixing covered and
// uncovered rows) and a compaction, all with the remap deferred.
func staleFixture(t *testing.T, l *Layer) *table.Table {
	t.Helper()
	ctx := context.Background()
	tb, err := table.Create(ctx, store.NewMemory(), schema, taskTableOpts)
	require.NoError(t, err)
	tb = appendRows(t, tb, 0, 400)
	tb, err = l.CreateIndex(ctx, tb, "t", "rid", table.RowID)
	require.NoError(t, err)
	tb = appendRows(t, tb, 400, 300)
	tb, _, err = tb.DeleteRowIDs(ctx, []uint64{7, 150, 250, 420})
	require.NoError(t, err)
	tb, err = tb.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 3, Fragments: []uint32{0, 1}, DeferIndexRemap: true})
	require.NoError(t, err)
	tb, err = tb.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 2, Fragments: []uint32{2, 4}, DeferIndexRemap: true})
	require.NoError(t, err)
	tb, _, err = tb.DeleteRowIDs(ctx, []uint64{20, 30, 350})
	require.NoError(t, err)
	tb = appendRows(t, tb, 700, 30)
	tb, err = tb.Compact(ctx, table.CompactOptions{TargetRows: 250, DeferIndexRemap: true})
	require.NoError(t, err)
	return tb
}

// TestIndexOptimizeTasksMatchRebuild: OPTIMIZE INDEX of a stale _rowid
// index (remap task + scan tasks for the uncovered fragments, 1, 2, 4
// workers and the JSON path) holds exactly the entries of a fresh
// single-pass build of the same snapshot, covers every fragment, answers
// every take as the row id sequences do, and leaves no history behind.
func TestIndexOptimizeTasksMatchRebuild(t *testing.T) {
	ctx := context.Background()
	mem := arrowtest.Mem(t)
	for _, mode := range []string{"workers=1", "workers=2", "workers=4", "json"} {
		l := New(mem)
		tb := staleFixture(t, l)
		require.NotEmpty(t, l.uncoveredOf(t, l, tb, "rid"))
		oracle := singlePass(t, tb, table.RowID)
		var nt *table.Table
		var err error
		if mode == "json" {
			plan, err := l.PlanIndexOptimize(ctx, tb, "rid", IndexBuildOptions{Tasks: 2})
			require.NoError(t, err)
			require.Len(t, plan.Tasks, 3) // the remap and two scans
			plan = roundTripJSON(t, plan, DecodeIndexBuildPlan)
			var rs []*IndexBuildResult
			for i := range plan.Tasks {
				worker, err := table.Open(ctx, tb.Store(), taskTableOpts)
				require.NoError(t, err)
				r, err := New(mem).ExecuteIndexBuild(ctx, worker, roundTripJSON(t, &plan.Tasks[i], DecodeIndexBuildTask))
				require.NoError(t, err)
				rs = append(rs, roundTripJSON(t, r, DecodeIndexBuildResult))
			}
			nt, err = l.CommitIndexBuild(ctx, tb, plan, rs)
			require.NoError(t, err)
		} else {
			l.SetWorkers(int(mode[len(mode)-1] - '0'))
			nt, err = l.OptimizeIndex(ctx, tb, "rid")
		}
		require.NoError(t, err, mode)
		m := nt.Index("rid")
		require.Equal(t, tb.FragmentIDs(), m.Fragments.ToArray())
		got, err := btree.Open(ctx, nt.Store(), m.Prefix, btree.Options{})
		require.NoError(t, err)
		requireSameEntries(t, oracle, got, table.RowID, nt)
		requireTakeAnswers(t, l, nt, "rid")
		require.Empty(t, l.uncoveredOf(t, l, nt, "rid"))
		hist, err := nt.History()
		require.NoError(t, err)
		require.Empty(t, hist, "history trimmed")
		require.Empty(t, indexOrphans(t, nt), mode)
	}
}

// TestIndexBuildTaskTwice: a task run twice gives two runs with the same
// entries; the commit uses the first result it meets and deletes every
// run it did not adopt; the plan cannot commit a second time.
func TestIndexBuildTaskTwice(t *testing.T) {
	ctx := context.Background()
	mem := arrowtest.Mem(t)
	tb := buildFixture(t)
	l := New(mem)
	plan, err := l.PlanIndexBuild(tb, "t", "ix", "k", IndexBuildOptions{Tasks: 3})
	require.NoError(t, err)
	rs := runPlan(t, l, tb, plan)
	again, err := l.ExecuteIndexBuild(ctx, tb, &plan.Tasks[1])
	require.NoError(t, err)
	require.Equal(t, rs[1].Rows, again.Rows)
	require.NotEqual(t, rs[1].Run, again.Run)
	nt, err := l.CommitIndexBuild(ctx, tb, plan, []*IndexBuildResult{rs[0], again, rs[1], rs[2]})
	require.NoError(t, err)
	got, err := btree.Open(ctx, nt.Store(), nt.Index("ix").Prefix, btree.Options{})
	require.NoError(t, err)
	requireSameEntries(t, singlePass(t, tb, "k"), got, "k", nt)
	require.Empty(t, indexOrphans(t, nt))
	_, err = l.CommitIndexBuild(ctx, nt, plan, rs)
	require.ErrorIs(t, err, ErrIndexExists)
}

// TestIndexBuildDroppedResult: a commit missing a task's result is refused
// (table.ErrTask; an index must cover what its plan says); the table stays
// at its version, its runs are orphans, and Cleanup removes them.
func TestIndexBuildDroppedResult(t *testing.T) {
	ctx := context.Background()
	mem := arrowtest.Mem(t)
	tb := buildFixture(t)
	l := New(mem)
	plan, err := l.PlanIndexBuild(tb, "t", "ix", "k", IndexBuildOptions{Tasks: 3})
	require.NoError(t, err)
	rs := runPlan(t, l, tb, plan)
	_, err = l.CommitIndexBuild(ctx, tb, plan, []*IndexBuildResult{rs[0], rs[2]})
	require.ErrorIs(t, err, table.ErrTask)
	require.ErrorIs(t, err, errkind.InvalidArgument)
	requireUnchangedThenCleaned(t, tb, rs)
}

// TestIndexBuildCrashBeforeCommit: runs written but never committed leave
// the table as it was; they are orphans Cleanup removes, and the index
// can be built afterwards.
func TestIndexBuildCrashBeforeCommit(t *testing.T) {
	mem := arrowtest.Mem(t)
	tb := buildFixture(t)
	l := New(mem)
	plan, err := l.PlanIndexBuild(tb, "t", "ix", table.RowID, IndexBuildOptions{Tasks: 2})
	require.NoError(t, err)
	rs := runPlan(t, l, tb, plan)
	requireUnchangedThenCleaned(t, tb, rs)
	nt, err := l.CreateIndex(context.Background(), tb, "t", "ix", table.RowID)
	require.NoError(t, err)
	requireTakeAnswers(t, l, nt, "ix")
}

func requireUnchangedThenCleaned(t *testing.T, tb *table.Table, rs []*IndexBuildResult) {
	t.Helper()
	ctx := context.Background()
	re, err := table.Open(ctx, tb.Store(), taskTableOpts)
	require.NoError(t, err)
	require.Equal(t, tb.Version(), re.Version())
	require.Nil(t, re.Index("ix"))
	var runs []string
	for _, r := range rs {
		runs = append(runs, r.Run+"lookup.srbt", r.Run+"pages.srbt")
	}
	slices.Sort(runs)
	require.Equal(t, runs, indexOrphans(t, re))
	_, err = table.Cleanup(ctx, tb.Store(), table.CleanupOptions{MinAge: -1})
	require.NoError(t, err)
	require.Empty(t, indexOrphans(t, re))
}

// TestIndexBuildConcurrentWriter: the table moving on between plan and
// commit. Appends and deletes rebase: the index records the plan's
// version, does not cover the appended fragment (the fallback serves it)
// and answers nothing for the deleted rows. A rewrite of covered
// fragments, or another build of the same index, fails with the typed
// conflict.
func TestIndexBuildConcurrentWriter(t *testing.T) {
	ctx := context.Background()
	mem := arrowtest.Mem(t)
	t.Run("append+delete", func(t *testing.T) {
		tb := buildFixture(t)
		l := New(mem)
		plan, err := l.PlanIndexBuild(tb, "t", "ix", table.RowID, IndexBuildOptions{Tasks: 2})
		require.NoError(t, err)
		rs := runPlan(t, l, tb, plan)
		t1 := appendRows(t, tb, 1000, 40)
		t1, _, err = t1.DeleteRowIDs(ctx, []uint64{5, 600})
		require.NoError(t, err)
		nt, err := l.CommitIndexBuild(ctx, t1, plan, rs)
		require.NoError(t, err)
		require.Equal(t, tb.Version(), nt.Index("ix").DatasetVersion)
		added := t1.FragmentIDs()[len(t1.FragmentIDs())-1]
		require.Equal(t, []uint32{added}, l.uncoveredOf(t, l, nt, "ix"))
		requireTakeAnswers(t, l, nt, "ix")
	})
	t.Run("rewrite", func(t *testing.T) {
		tb := buildFixture(t)
		l := New(mem)
		plan, err := l.PlanIndexBuild(tb, "t", "ix", "k", IndexBuildOptions{Tasks: 2})
		require.NoError(t, err)
		rs := runPlan(t, l, tb, plan)
		t1, err := tb.Compact(ctx, table.CompactOptions{TargetRows: 400, MinDeletedFraction: 2})
		require.NoError(t, err)
		require.NotEqual(t, tb.FragmentIDs(), t1.FragmentIDs())
		_, err = l.CommitIndexBuild(ctx, t1, plan, rs)
		require.ErrorIs(t, err, table.ErrConflict)
		require.ErrorIs(t, err, errkind.Conflict)
		// Also when the driver commits on the snapshot it planned on.
		_, err = l.CommitIndexBuild(ctx, tb, plan, rs)
		require.ErrorIs(t, err, table.ErrConflict)
		re, err := table.Open(ctx, tb.Store(), taskTableOpts)
		require.NoError(t, err)
		require.Equal(t, t1.Version(), re.Version())
		require.Nil(t, re.Index("ix"))
	})
	t.Run("optimize twice", func(t *testing.T) {
		l := New(mem)
		tb := staleFixture(t, l)
		p1, err := l.PlanIndexOptimize(ctx, tb, "rid", IndexBuildOptions{})
		require.NoError(t, err)
		p2, err := l.PlanIndexOptimize(ctx, tb, "rid", IndexBuildOptions{})
		require.NoError(t, err)
		r1, r2 := runPlan(t, l, tb, p1), runPlan(t, l, tb, p2)
		t1, err := l.CommitIndexBuild(ctx, tb, p1, r1)
		require.NoError(t, err)
		_, err = l.CommitIndexBuild(ctx, t1, p2, r2)
		require.ErrorIs(t, err, table.ErrConflict)
	})
}

// TestIndexBuildTaskErrors: malformed, foreign and inconsistent plans,
// tasks and results are refused with typed errors; nothing commits.
func TestIndexBuildTaskErrors(t *testing.T) {
	ctx := context.Background()
	mem := arrowtest.Mem(t)
	tb := buildFixture(t)
	other := buildFixture(t)
	l := New(mem)
	plan, err := l.PlanIndexBuild(tb, "t", "ix", "k", IndexBuildOptions{Tasks: 2})
	require.NoError(t, err)
	oplan, err := l.PlanIndexBuild(other, "t", "ix", "k", IndexBuildOptions{Tasks: 2})
	require.NoError(t, err)
	rs := runPlan(t, l, tb, plan)
	invalid := func(err error) {
		t.Helper()
		require.ErrorIs(t, err, table.ErrTask)
		require.ErrorIs(t, err, errkind.InvalidArgument)
	}
	for _, in := range []string{``, `{`, `[]`, `{"format":1,"bogus":1}`,
		`{"format":2,"plan":"p","seq":0,"version":1,"name":"i","column":"k"}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"name":"","column":"k"}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"name":"i","column":"k","remap":"../x/"}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"name":"i","column":"k","keep":[1]}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"name":"i","column":"k","remap":"_indices/a/","keep":[2,1]}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"name":"i","column":"k","sources":[{"fragment":2,"data_file":"d","physical_rows":1},{"fragment":1,"data_file":"d","physical_rows":1}]}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"name":"i","column":"k"} {}`} {
		_, err := DecodeIndexBuildTask([]byte(in))
		invalid(err)
	}
	_, err = DecodeIndexBuildResult([]byte(`{"format":1,"plan":"p","seq":0,"run":"data/x/","rows":1}`))
	invalid(err)
	// A plan whose tasks do not cover its fragments.
	bad := *plan
	bad.Tasks = plan.Tasks[:1]
	_, err = l.CommitIndexBuild(ctx, tb, &bad, rs[:1])
	invalid(err)
	// A task of another table.
	_, err = l.ExecuteIndexBuild(ctx, tb, &oplan.Tasks[0])
	invalid(err)
	// Results of another plan, and results swapped between tasks.
	_, err = l.CommitIndexBuild(ctx, tb, plan, runPlan(t, l, other, oplan))
	invalid(err)
	swapped := []*IndexBuildResult{{ResultHeader: rs[0].ResultHeader, Run: rs[1].Run, Rows: rs[1].Rows}, {ResultHeader: rs[1].ResultHeader, Run: rs[0].Run, Rows: rs[0].Rows}}
	_, err = l.CommitIndexBuild(ctx, tb, plan, swapped)
	invalid(err)
	// A result lying about its run's size.
	lie := *rs[0]
	lie.Rows++
	_, err = l.CommitIndexBuild(ctx, tb, plan, []*IndexBuildResult{&lie, rs[1]})
	require.ErrorIs(t, err, table.ErrConservation)
	// A plan from the future of this snapshot.
	later := *plan
	later.Version++
	later.Tasks = slices.Clone(plan.Tasks)
	for i := range later.Tasks {
		later.Tasks[i].Version++
	}
	_, err = l.CommitIndexBuild(ctx, tb, &later, rs)
	invalid(err)
	re, err := table.Open(ctx, tb.Store(), taskTableOpts)
	require.NoError(t, err)
	require.Equal(t, tb.Version(), re.Version())
	require.Nil(t, re.Index("ix"))
}

// FuzzDecodeIndexBuildTask: the decoders never panic, refuse with
// table.ErrTask, and what they accept re-encodes to something they accept
// again unchanged.
func FuzzDecodeIndexBuildTask(f *testing.F) {
	src := `"sources":[{"fragment":1,"data_file":"data/a","physical_rows":9,"live_rows":8,"deletion_digest":7}]`
	f.Add([]byte(`{"format":1,"plan":"p","seq":0,"version":3,"name":"ix","column":"k",` + src + `}`))
	f.Add([]byte(`{"format":1,"plan":"p","seq":0,"version":3,"name":"ix","column":"k","remap":"_indices/a/","keep":[0,2]}`))
	f.Add([]byte(`{"format":1,"plan":"p","seq":1,"run":"_indices/b/","rows":40}`))
	f.Add([]byte(`{"format":1,"id":"p","version":3,"name":"ix","column":"k","replace":"_indices/a/","fragments":[0,1,2],"tasks":[{"format":1,"plan":"p","seq":0,"version":3,"name":"ix","column":"k","remap":"_indices/a/","keep":[0,2]},{"format":1,"plan":"p","seq":1,"version":3,"name":"ix","column":"k",` + src + `}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if k, err := DecodeIndexBuildTask(b); err == nil {
			require.Equal(t, k, roundTripJSON(t, k, DecodeIndexBuildTask))
		} else {
			require.ErrorIs(t, err, table.ErrTask)
		}
		if r, err := DecodeIndexBuildResult(b); err == nil {
			require.Equal(t, r, roundTripJSON(t, r, DecodeIndexBuildResult))
		} else {
			require.ErrorIs(t, err, table.ErrTask)
		}
		if p, err := DecodeIndexBuildPlan(b); err == nil {
			require.Equal(t, p, roundTripJSON(t, p, DecodeIndexBuildPlan))
		} else {
			require.ErrorIs(t, err, table.ErrTask)
		}
	})
}
