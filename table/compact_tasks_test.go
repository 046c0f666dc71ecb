package table_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// fixtureOpts are rwFixture's table options (a worker reopening the table
// from its store uses them).
var fixtureOpts = table.Options{MaxRowsPerFragment: 120, BatchRows: 16}

// layout is a version's fragments as (id, live row ids in order).
type fragLayout struct {
	ID  uint32
	IDs []uint64
}

func layoutOf(tb *table.Table) []fragLayout {
	var out []fragLayout
	for _, f := range tb.Fragments() {
		out = append(out, fragLayout{f.ID, idsInOrder(f)})
	}
	return out
}

// modelCompaction is what an order-preserving compaction of plan must
// produce, worked out from the table before it alone: fragments outside
// the plan stay; each run's sources' live ids, in order, are cut into
// pieces of TargetRows, which become new fragments numbered from the
// table's NextFragmentID in run order.
func modelCompaction(before *table.Table, plan *table.CompactPlan) []fragLayout {
	in := map[uint32]bool{}
	next := before.Manifest().NextFragmentID
	var out []fragLayout
	for lo := 0; lo < len(plan.Tasks); {
		hi := lo + 1
		for hi < len(plan.Tasks) && plan.Tasks[hi].Run == plan.Tasks[lo].Run {
			hi++
		}
		var ids []uint64
		for _, k := range plan.Tasks[lo:hi] {
			for _, s := range k.Sources {
				if !in[s.Fragment] {
					in[s.Fragment] = true
					ids = append(ids, idsInOrder(before.Manifest().Fragment(s.Fragment))...)
				}
			}
		}
		for c := range slices.Chunk(ids, plan.Tasks[lo].TargetRows) {
			out = append(out, fragLayout{next, c})
			next++
		}
		lo = hi
	}
	for _, f := range before.Fragments() {
		if !in[f.ID] {
			out = append(out, fragLayout{f.ID, idsInOrder(f)})
		}
	}
	slices.SortFunc(out, func(a, b fragLayout) int { return int(a.ID) - int(b.ID) })
	return out
}

func roundTrip[T any](t *testing.T, v *T, decode func([]byte) (*T, error)) *T {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	got, err := decode(b)
	require.NoError(t, err)
	return got
}

// TestCompactTasksMatchModel: Compact with 1, 2 and 4 workers and the
// plan / task / commit path driven by hand through JSON, with each task
// run by a "remote" worker that opens the table from the store itself,
// all give exactly the model's fragments, rows and ids.
func TestCompactTasksMatchModel(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	for seed := range uint64(6) {
		o := table.CompactOptions{TargetRows: []int{200, 37, 1000}[seed%3], DeferIndexRemap: true, Mem: mem}
		for _, mode := range []string{"workers=1", "workers=2", "workers=4", "json"} {
			tb, want, _ := rwFixture(t, seed, 14, mem)
			plan, err := tb.PlanCompaction(o)
			require.NoError(t, err)
			require.NotEmpty(t, plan.Tasks)
			model := modelCompaction(tb, plan)
			for _, k := range plan.Tasks {
				require.LessOrEqual(t, k.Rows, uint64(o.TargetRows))
			}
			var nt *table.Table
			switch mode {
			case "json":
				plan = roundTrip(t, plan, table.DecodeCompactPlan)
				var results []*table.CompactResult
				for i := range plan.Tasks {
					k := roundTrip(t, &plan.Tasks[i], table.DecodeCompactTask)
					worker, err := table.Open(ctx, tb.Store(), fixtureOpts)
					require.NoError(t, err)
					r, err := worker.ExecuteCompaction(ctx, k, mem)
					require.NoError(t, err)
					results = append(results, roundTrip(t, r, table.DecodeCompactResult))
				}
				nt, err = tb.CommitCompaction(ctx, plan, results)
			default:
				oo := o
				oo.Workers = int(mode[len(mode)-1] - '0')
				nt, err = tb.Compact(ctx, oo)
			}
			require.NoError(t, err, mode)
			require.Equal(t, model, layoutOf(nt), mode)
			require.Equal(t, want, scanAll(t, nt, mem), mode)
			require.NotEmpty(t, checkTransitions(t, tb, nt, "", mem))
			re, err := table.Open(ctx, nt.Store(), fixtureOpts)
			require.NoError(t, err)
			require.Equal(t, want, scanAll(t, re, mem))
		}
	}
}

// executeAll runs every task of plan once.
func executeAll(t *testing.T, tb *table.Table, plan *table.CompactPlan, mem memory.Allocator) []*table.CompactResult {
	t.Helper()
	return executeEach(t, plan.Tasks, func(ctx context.Context, k *table.CompactTask) (*table.CompactResult, error) {
		return tb.ExecuteCompaction(ctx, k, mem)
	})
}

// executeEach runs every task in order with exec, as a driver would,
// requiring each to succeed.
func executeEach[K, R any](t *testing.T, tasks []K, exec func(context.Context, *K) (*R, error)) []*R {
	t.Helper()
	rs := make([]*R, len(tasks))
	for i := range tasks {
		r, err := exec(context.Background(), &tasks[i])
		require.NoError(t, err)
		rs[i] = r
	}
	return rs
}

func resultFiles(rs ...*table.CompactResult) []string {
	return dataFiles(rs, func(r *table.CompactResult) []table.ResultFile { return r.Files })
}

// dataFiles lists, sorted, the data files the results name.
func dataFiles[R any](rs []R, files func(R) []table.ResultFile) []string {
	var out []string
	for _, r := range rs {
		for _, f := range files(r) {
			out = append(out, f.DataFile)
		}
	}
	slices.Sort(out)
	return out
}

func referencedFiles(tb *table.Table) map[string]bool {
	m := map[string]bool{}
	for _, f := range tb.Fragments() {
		m[f.DataFile] = true
	}
	return m
}

// orphans are the data files no manifest of the table names, as Cleanup
// (with the age guard off) finds and deletes them.
func orphans(t *testing.T, st store.Store) []string {
	t.Helper()
	ctx := context.Background()
	vs, err := table.Versions(ctx, st)
	require.NoError(t, err)
	named := map[string]bool{}
	for _, v := range vs {
		tb, err := table.OpenVersion(ctx, st, v.Version, fixtureOpts)
		require.NoError(t, err)
		for p := range referencedFiles(tb) {
			named[p] = true
		}
	}
	all, err := st.List(ctx, "data/")
	require.NoError(t, err)
	var out []string
	for _, p := range all {
		if !named[p] {
			out = append(out, p)
		}
	}
	return out
}

// TestCompactTaskTwice: a task executed twice gives two results naming
// different files; committing both commits the task once (no duplicated
// rows), the second result's files are orphans Cleanup removes, and the
// plan cannot be committed a second time.
func TestCompactTaskTwice(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, want, _ := rwFixture(t, 7, 14, mem)
	plan, err := tb.PlanCompaction(table.CompactOptions{TargetRows: 200, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	first := executeAll(t, tb, plan, mem)
	again, err := tb.ExecuteCompaction(ctx, &plan.Tasks[0], mem)
	require.NoError(t, err)
	require.Equal(t, first[0].Rows(), again.Rows())
	for _, p := range resultFiles(again) {
		require.NotContains(t, resultFiles(first[0]), p)
	}

	nt, err := tb.CommitCompaction(ctx, plan, append(first, again))
	require.NoError(t, err)
	require.Equal(t, want, scanAll(t, nt, mem))
	require.Equal(t, modelCompaction(tb, plan), layoutOf(nt))
	require.Equal(t, resultFiles(again), orphans(t, nt.Store()))

	_, err = nt.CommitCompaction(ctx, plan, first)
	require.ErrorIs(t, err, table.ErrConflict)
	require.ErrorIs(t, err, errkind.Conflict)

	rep, err := table.Cleanup(ctx, nt.Store(), table.CleanupOptions{MinAge: -1})
	require.NoError(t, err)
	require.GreaterOrEqual(t, rep.FilesDeleted, len(resultFiles(again)))
	require.Empty(t, orphans(t, nt.Store()))
	require.Equal(t, want, scanAll(t, nt, mem))
}

// flakyStore fails the Puts of data files while fail > 0.
type flakyStore struct {
	store.Store
	fail atomic.Int32
}

var errInjected = errors.New("injected store failure")

func (s *flakyStore) Put(ctx context.Context, p string, b []byte) error {
	if strings.HasPrefix(p, "data/") && s.fail.Add(-1) >= 0 {
		return errInjected
	}
	return s.Store.Put(ctx, p, b)
}

// TestCompactTaskRetry: a task whose write fails once is retried and the
// commit is the model's; the failed attempt left nothing a manifest names.
func TestCompactTaskRetry(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, want, _ := rwFixture(t, 3, 14, mem)
	plan, err := tb.PlanCompaction(table.CompactOptions{TargetRows: 60, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	fs := &flakyStore{Store: tb.Store()}
	worker, err := table.Open(ctx, fs, fixtureOpts)
	require.NoError(t, err)
	var rs []*table.CompactResult
	for i := range plan.Tasks {
		if i == len(plan.Tasks)/2 {
			fs.fail.Store(1)
			_, err := worker.ExecuteCompaction(ctx, &plan.Tasks[i], mem)
			require.ErrorIs(t, err, errInjected)
		}
		r, err := worker.ExecuteCompaction(ctx, &plan.Tasks[i], mem)
		require.NoError(t, err)
		rs = append(rs, r)
	}
	nt, err := tb.CommitCompaction(ctx, plan, rs)
	require.NoError(t, err)
	require.Equal(t, want, scanAll(t, nt, mem))
	require.Equal(t, modelCompaction(tb, plan), layoutOf(nt))
	for _, p := range orphans(t, nt.Store()) {
		require.NotContains(t, resultFiles(rs...), p)
	}
}

// TestCompactFailedTaskAborts: in the single-process path a failing task
// fails Compact, leaves the table at its version and removes the files of
// the tasks that did finish.
func TestCompactFailedTaskAborts(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, want, _ := rwFixture(t, 4, 14, mem)
	fs := &flakyStore{Store: tb.Store()}
	fs.fail.Store(1)
	worker, err := table.Open(ctx, fs, fixtureOpts)
	require.NoError(t, err)
	_, err = worker.Compact(ctx, table.CompactOptions{TargetRows: 200, Workers: 2, Mem: mem})
	require.ErrorIs(t, err, errInjected)
	re, err := table.Open(ctx, tb.Store(), fixtureOpts)
	require.NoError(t, err)
	require.Equal(t, tb.Version(), re.Version())
	require.Equal(t, want, scanAll(t, re, mem))
	require.Empty(t, orphans(t, tb.Store()))
}

// TestCompactCrashBeforeCommit: tasks executed but never committed (the
// driver died) leave the table at its last version, reading as before;
// their files are orphans, and Cleanup removes exactly them.
func TestCompactCrashBeforeCommit(t *testing.T) {
	mem := exectest.Mem(t)
	tb, want, _ := rwFixture(t, 5, 14, mem)
	plan, err := tb.PlanCompaction(table.CompactOptions{TargetRows: 200, Mem: mem})
	require.NoError(t, err)
	rs := executeAll(t, tb, plan, mem)
	requireCrashedDriver(t, tb, want, resultFiles(rs...), mem)
}

// requireCrashedDriver: after tasks wrote files but nothing committed, the
// table reopens at tb's version reading want, the files are exactly its
// orphans, and Cleanup removes exactly them.
func requireCrashedDriver[W any](t *testing.T, tb *table.Table, want W, written []string, mem memory.Allocator) {
	t.Helper()
	ctx := context.Background()
	re, err := table.Open(ctx, tb.Store(), fixtureOpts)
	require.NoError(t, err)
	require.Equal(t, tb.Version(), re.Version())
	require.Equal(t, layoutOf(tb), layoutOf(re))
	require.Equal(t, want, scanAll(t, re, mem))
	require.Equal(t, written, orphans(t, tb.Store()))
	rep, err := table.Cleanup(ctx, tb.Store(), table.CleanupOptions{MinAge: -1})
	require.NoError(t, err)
	require.Equal(t, len(written), rep.FilesDeleted)
	require.Empty(t, orphans(t, tb.Store()))
	require.Equal(t, want, scanAll(t, re, mem))
}

// TestCompactTasksConcurrentWriter: between Plan and Commit, deletes on
// the sources and appends are rebased (the deleted rows stay deleted on
// the destinations, the appended rows stay); a concurrent rewrite of the
// same sources fails the commit with the typed conflict.
func TestCompactTasksConcurrentWriter(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	t.Run("delete", func(t *testing.T) {
		tb, want, r := rwFixture(t, 8, 14, mem)
		plan, err := tb.PlanCompaction(table.CompactOptions{TargetRows: 200, Mem: mem})
		require.NoError(t, err)
		rs := executeAll(t, tb, plan, mem)
		var del []uint64
		for id := range want {
			if r.IntN(4) == 0 {
				del = append(del, id)
			}
		}
		t1, _, err := tb.DeleteRowIDs(ctx, del)
		require.NoError(t, err)
		nt, err := t1.CommitCompaction(ctx, plan, rs)
		require.NoError(t, err)
		for _, id := range del {
			delete(want, id)
		}
		require.Equal(t, want, scanAll(t, nt, mem))
		require.Equal(t, t1.LiveRows(), nt.LiveRows())
	})
	t.Run("append", func(t *testing.T) {
		tb, _, r := rwFixture(t, 9, 14, mem)
		plan, err := tb.PlanCompaction(table.CompactOptions{TargetRows: 200, Mem: mem})
		require.NoError(t, err)
		rs := executeAll(t, tb, plan, mem)
		b := rowsBatch(t, mem, genRows(r, 50), nil)
		t1, err := tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
		b.Release()
		require.NoError(t, err)
		want := scanAll(t, t1, mem)
		nt, err := t1.CommitCompaction(ctx, plan, rs)
		require.NoError(t, err)
		require.Equal(t, want, scanAll(t, nt, mem))
	})
	t.Run("rewrite", func(t *testing.T) {
		tb, want, _ := rwFixture(t, 10, 14, mem)
		plan, err := tb.PlanCompaction(table.CompactOptions{TargetRows: 200, Mem: mem})
		require.NoError(t, err)
		rs := executeAll(t, tb, plan, mem)
		t1, err := tb.Compact(ctx, table.CompactOptions{TargetRows: 200, Mem: mem})
		require.NoError(t, err)
		_, err = t1.CommitCompaction(ctx, plan, rs)
		require.ErrorIs(t, err, table.ErrConflict)
		require.ErrorIs(t, err, errkind.Conflict)
		re, err := table.Open(ctx, tb.Store(), fixtureOpts)
		require.NoError(t, err)
		require.Equal(t, t1.Version(), re.Version())
		require.Equal(t, want, scanAll(t, re, mem))
	})
}

// TestCompactTaskErrors: malformed, foreign and inconsistent plans, tasks
// and results are refused with typed errors, and nothing is committed.
func TestCompactTaskErrors(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, _, _ := rwFixture(t, 11, 14, mem)
	other, _, _ := rwFixture(t, 12, 14, mem)
	o := table.CompactOptions{TargetRows: 200, Mem: mem}
	plan, err := tb.PlanCompaction(o)
	require.NoError(t, err)
	oplan, err := other.PlanCompaction(o)
	require.NoError(t, err)
	rs := executeAll(t, tb, plan, mem)

	invalid := func(err error) {
		t.Helper()
		require.ErrorIs(t, err, table.ErrTask)
		require.ErrorIs(t, err, errkind.InvalidArgument)
	}
	// Decoding.
	for _, in := range []string{``, `{`, `[]`, `{"format":2,"plan":"x","seq":0,"version":1,"target_rows":1,"sources":[{"fragment":1}]}`,
		`{"format":1,"plan":"x","seq":0,"version":1,"target_rows":0,"sources":[{"fragment":1}]}`,
		`{"format":1,"plan":"x","seq":0,"version":1,"target_rows":5,"sources":[]}`,
		`{"format":1,"bogus":1}`, `{"format":1,"plan":"x","seq":0,"version":1,"target_rows":5,"sources":[{"fragment":1}]} {}`} {
		_, err := table.DecodeCompactTask([]byte(in))
		invalid(err)
	}
	_, err = table.DecodeCompactResult([]byte(`{"format":7}`))
	invalid(err)
	_, err = table.DecodeCompactPlan([]byte(`{"format":1,"id":"a","version":1,"tasks":[{"format":1,"plan":"b","seq":0,"version":1,"target_rows":5,"sources":[{"fragment":1,"physical_rows":1}]}]}`))
	invalid(err)

	// A task of another table: its sources are not this table's fragments.
	_, err = tb.ExecuteCompaction(ctx, &oplan.Tasks[0], mem)
	invalid(err)
	// A task whose source was tampered with.
	k := plan.Tasks[0]
	k.Sources = slices.Clone(k.Sources)
	k.Sources[0].DeletionDigest++
	_, err = tb.ExecuteCompaction(ctx, &k, mem)
	invalid(err)
	// A result of another plan.
	ors := executeAll(t, other, oplan, mem)
	_, err = tb.CommitCompaction(ctx, plan, ors)
	invalid(err)
	// A result missing a file loses rows.
	short := *rs[0]
	short.Files = short.Files[:len(short.Files)-1]
	_, err = tb.CommitCompaction(ctx, plan, append([]*table.CompactResult{&short}, rs[1:]...))
	require.ErrorIs(t, err, table.ErrConservation)
	// A plan from the future of this snapshot.
	later := *plan
	later.Tasks = slices.Clone(plan.Tasks)
	later.Version++
	for i := range later.Tasks {
		later.Tasks[i].Version++
	}
	_, err = tb.CommitCompaction(ctx, &later, rs)
	invalid(err)

	re, err := table.Open(ctx, tb.Store(), fixtureOpts)
	require.NoError(t, err)
	require.Equal(t, tb.Version(), re.Version())
	// A run missing the result of one of its tasks is not committed.
	same, err := tb.CommitCompaction(ctx, plan, rs[:len(rs)-1])
	require.NoError(t, err)
	require.Equal(t, tb.Version(), same.Version())
}

// TestCompactTasksPartialRuns: an index covering the first fragments
// splits the compaction into two runs (never mixing covered and uncovered
// rows); with the results of one run only, that run commits alone.
func TestCompactTasksPartialRuns(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, want, _ := rwFixture(t, 13, 14, mem)
	tb = fakeIndex(t, tb, "ix", []uint32{0, 1, 2, 3, 4})
	plan, err := tb.PlanCompaction(table.CompactOptions{TargetRows: 100, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	last := plan.Tasks[len(plan.Tasks)-1].Run
	require.Positive(t, last)
	rs := executeAll(t, tb, plan, mem)
	var run0 []*table.CompactResult
	for i, k := range plan.Tasks {
		if k.Run == 0 {
			run0 = append(run0, rs[i])
		}
	}
	nt, err := tb.CommitCompaction(ctx, plan, run0)
	require.NoError(t, err)
	require.Equal(t, want, scanAll(t, nt, mem))
	for _, k := range plan.Tasks {
		for _, s := range k.Sources {
			require.Equal(t, k.Run != 0, nt.Manifest().Fragment(s.Fragment) != nil, "fragment %d of run %d", s.Fragment, k.Run)
		}
	}
}

// FuzzDecodeCompactTask: the decoders of plans, tasks and results never
// panic, and what they accept re-encodes to something they accept again
// unchanged.
func FuzzDecodeCompactTask(f *testing.F) {
	f.Add([]byte(`{"format":1,"plan":"p","seq":0,"version":3,"target_rows":5,"sources":[{"fragment":1,"data_file":"data/a.arrow","physical_rows":9,"live_rows":8,"deletion_digest":7}]}`))
	f.Add([]byte(`{"format":1,"plan":"p","seq":0,"files":[{"data_file":"data/x","rows":3,"batch_rows":2,"file":{"Size":10,"ID":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16],"TailCRC":1,"Spans":[{"End":5,"CRC":2}]}}]}`))
	f.Add([]byte(`{"format":1,"id":"p","version":3,"tasks":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if k, err := table.DecodeCompactTask(b); err == nil {
			require.Equal(t, k, roundTrip(t, k, table.DecodeCompactTask))
		} else {
			require.ErrorIs(t, err, table.ErrTask)
		}
		if r, err := table.DecodeCompactResult(b); err == nil {
			require.Equal(t, r, roundTrip(t, r, table.DecodeCompactResult))
		} else {
			require.ErrorIs(t, err, table.ErrTask)
		}
		if p, err := table.DecodeCompactPlan(b); err == nil {
			require.Equal(t, p, roundTrip(t, p, table.DecodeCompactPlan))
		} else {
			require.ErrorIs(t, err, table.ErrTask)
		}
	})
}
