package table_test

import (
	"cmp"
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
)

// compareRefKeys orders two rows' values of key as the recluster does:
// NULLs first, then by value.
func compareRefKeys(key string, a, b refRow) int {
	nullsFirst := func(x, y any, c func() int) int {
		switch {
		case x == nil && y == nil:
			return 0
		case x == nil:
			return -1
		case y == nil:
			return 1
		}
		return c()
	}
	switch key {
	case "k":
		return cmp.Compare(a.k, b.k)
	case "name":
		return nullsFirst(a.name, b.name, func() int { return cmp.Compare(a.name.(string), b.name.(string)) })
	case "score":
		return nullsFirst(a.score, b.score, func() int { return cmp.Compare(a.score.(float64), b.score.(float64)) })
	}
	panic("unknown key " + key)
}

// modelRecluster is what reclustering the sources of before by key into
// want destinations must produce, worked out from the rows alone: the
// sources' live ids in source order are stably sorted by key and cut at
// the sorted positions p where the key changes and p*want/n starts a new
// slice; each destination keeps source order and becomes a new fragment
// numbered from NextFragmentID.
func modelRecluster(before *table.Table, rows map[uint64]refRow, key string, want int, srcs []uint32) []fragLayout {
	in := map[uint32]bool{}
	var ids []uint64
	for _, id := range srcs {
		in[id] = true
		ids = append(ids, idsInOrder(before.Manifest().Fragment(id))...)
	}
	n := len(ids)
	pos := make([]int, n)
	for i := range pos {
		pos[i] = i
	}
	slices.SortStableFunc(pos, func(a, b int) int { return compareRefKeys(key, rows[ids[a]], rows[ids[b]]) })
	label := make([]int, n)
	bucket, prev := -1, -1
	for p, i := range pos {
		if p == 0 || compareRefKeys(key, rows[ids[pos[p-1]]], rows[ids[i]]) != 0 {
			if b := p * want / n; b != prev {
				prev, bucket = b, bucket+1
			}
		}
		label[i] = bucket
	}
	dests := make([][]uint64, bucket+1)
	for i, id := range ids {
		dests[label[i]] = append(dests[label[i]], id)
	}
	var out []fragLayout
	for _, f := range before.Fragments() {
		if !in[f.ID] {
			out = append(out, fragLayout{f.ID, idsInOrder(f)})
		}
	}
	next := before.Manifest().NextFragmentID
	for _, d := range dests {
		out = append(out, fragLayout{next, d})
		next++
	}
	slices.SortFunc(out, func(a, b fragLayout) int { return int(a.ID) - int(b.ID) })
	return out
}

func withRows(tb *table.Table) []uint32 {
	var ids []uint32
	for _, f := range tb.Fragments() {
		if f.PhysicalRows > 0 {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// TestReclusterTasksMatchModel: Recluster with 1, 2 and 4 workers (and as
// many tasks) and the plan / task / commit path driven by hand through
// JSON, each task run by a "remote" worker opening the table from the
// store, all give exactly the model's fragments, rows and ids, for an
// integer key, a string key with NULLs and a float key with NULLs.
func TestReclusterTasksMatchModel(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	for seed := range uint64(6) {
		key := []string{"k", "name", "score"}[seed%3]
		want := []int{1, 3, 7, 5, 12, 2}[seed]
		for _, mode := range []string{"workers=1", "workers=2", "workers=4", "json"} {
			tb, rows, _ := rwFixture(t, seed, 10, mem)
			o := table.ReclusterOptions{Destinations: want, DeferIndexRemap: true, Mem: mem}
			model := modelRecluster(tb, rows, key, want, withRows(tb))
			var nt *table.Table
			var err error
			switch mode {
			case "json":
				o.Tasks = 3
				plan, err := tb.PlanRecluster(ctx, key, o)
				require.NoError(t, err)
				require.Len(t, plan.Tasks, min(3, len(plan.Bounds)))
				plan = roundTrip(t, plan, table.DecodeReclusterPlan)
				var results []*table.ReclusterResult
				for i := range plan.Tasks {
					k := roundTrip(t, &plan.Tasks[i], table.DecodeReclusterTask)
					worker, err := table.Open(ctx, tb.Store(), fixtureOpts)
					require.NoError(t, err)
					r, err := worker.ExecuteRecluster(ctx, k, mem)
					require.NoError(t, err)
					results = append(results, roundTrip(t, r, table.DecodeReclusterResult))
				}
				nt, err = tb.CommitRecluster(ctx, plan, results)
				require.NoError(t, err)
			default:
				o.Workers = int(mode[len(mode)-1] - '0')
				nt, err = tb.Recluster(ctx, key, o)
			}
			require.NoError(t, err, mode)
			require.Equal(t, model, layoutOf(nt), "%s key %s", mode, key)
			require.Equal(t, rows, scanAll(t, nt, mem), mode)
			trs := checkTransitions(t, tb, nt, "", mem)
			require.Len(t, trs, 1)
			require.Equal(t, table.TransitionStablePartition, trs[0].Kind)
			re, err := table.Open(ctx, nt.Store(), fixtureOpts)
			require.NoError(t, err)
			require.Equal(t, rows, scanAll(t, re, mem))
			require.Empty(t, orphans(t, nt.Store()), mode)
		}
	}
}

// reclusterPlan plans a recluster by k into 6 destinations as 3 tasks.
func reclusterPlan(t *testing.T, tb *table.Table) *table.ReclusterPlan {
	t.Helper()
	plan, err := tb.PlanRecluster(context.Background(), "k", table.ReclusterOptions{Destinations: 6, Tasks: 3, DeferIndexRemap: true})
	require.NoError(t, err)
	require.Len(t, plan.Tasks, 3)
	return plan
}

func executeRecluster(t *testing.T, tb *table.Table, plan *table.ReclusterPlan) []*table.ReclusterResult {
	t.Helper()
	var rs []*table.ReclusterResult
	for i := range plan.Tasks {
		r, err := tb.ExecuteRecluster(context.Background(), &plan.Tasks[i], nil)
		require.NoError(t, err)
		rs = append(rs, r)
	}
	return rs
}

func reclusterFiles(rs ...*table.ReclusterResult) []string {
	var out []string
	for _, r := range rs {
		for _, f := range r.Files {
			out = append(out, f.DataFile)
		}
	}
	slices.Sort(out)
	return out
}

// TestReclusterTaskTwice: a task executed twice writes other files with
// the same rows: whichever result the commit meets first is used (here
// the second run's) and the outcome is the model's; the other result's
// files are orphans Cleanup removes; the plan cannot commit again.
func TestReclusterTaskTwice(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, rows, _ := rwFixture(t, 21, 10, mem)
	plan := reclusterPlan(t, tb)
	first := executeRecluster(t, tb, plan)
	again, err := tb.ExecuteRecluster(ctx, &plan.Tasks[1], mem)
	require.NoError(t, err)
	require.Len(t, again.Files, len(first[1].Files))
	for i, f := range again.Files {
		require.Equal(t, first[1].Files[i].Rows, f.Rows)
		require.NotEqual(t, first[1].Files[i].DataFile, f.DataFile)
	}
	nt, err := tb.CommitRecluster(ctx, plan, []*table.ReclusterResult{first[0], again, first[1], first[2]})
	require.NoError(t, err)
	require.Equal(t, rows, scanAll(t, nt, mem))
	require.Equal(t, modelRecluster(tb, rows, "k", 6, withRows(tb)), layoutOf(nt))
	require.Equal(t, reclusterFiles(first[1]), orphans(t, nt.Store()))

	_, err = nt.CommitRecluster(ctx, plan, first)
	require.ErrorIs(t, err, table.ErrConflict)
	require.ErrorIs(t, err, errkind.Conflict)

	_, err = table.Cleanup(ctx, nt.Store(), table.CleanupOptions{MinAge: -1})
	require.NoError(t, err)
	require.Empty(t, orphans(t, nt.Store()))
	require.Equal(t, rows, scanAll(t, nt, mem))
}

// TestReclusterDroppedResult: a recluster is one transition, so a commit
// missing one task's result is refused with ErrTask; the table stays at
// its version, reading as before, and the other results' files are
// orphans for Cleanup. With the missing task run again, the commit goes
// through.
func TestReclusterDroppedResult(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, rows, _ := rwFixture(t, 22, 10, mem)
	plan := reclusterPlan(t, tb)
	rs := executeRecluster(t, tb, plan)
	_, err := tb.CommitRecluster(ctx, plan, []*table.ReclusterResult{rs[0], rs[2]})
	require.ErrorIs(t, err, table.ErrTask)
	require.ErrorIs(t, err, errkind.InvalidArgument)
	re, err := table.Open(ctx, tb.Store(), fixtureOpts)
	require.NoError(t, err)
	require.Equal(t, tb.Version(), re.Version())
	require.Equal(t, rows, scanAll(t, re, mem))
	require.Equal(t, reclusterFiles(rs...), orphans(t, tb.Store()))

	redo, err := tb.ExecuteRecluster(ctx, &plan.Tasks[1], mem)
	require.NoError(t, err)
	nt, err := tb.CommitRecluster(ctx, plan, []*table.ReclusterResult{rs[0], redo, rs[2]})
	require.NoError(t, err)
	require.Equal(t, modelRecluster(tb, rows, "k", 6, withRows(tb)), layoutOf(nt))
	require.Equal(t, reclusterFiles(rs[1]), orphans(t, tb.Store()))
}

// TestReclusterCrashBeforeCommit: tasks executed but never committed leave
// the table at its version; their files are orphans and Cleanup removes
// exactly them.
func TestReclusterCrashBeforeCommit(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, rows, _ := rwFixture(t, 23, 10, mem)
	plan := reclusterPlan(t, tb)
	rs := executeRecluster(t, tb, plan)
	re, err := table.Open(ctx, tb.Store(), fixtureOpts)
	require.NoError(t, err)
	require.Equal(t, tb.Version(), re.Version())
	require.Equal(t, layoutOf(tb), layoutOf(re))
	require.Equal(t, rows, scanAll(t, re, mem))
	require.Equal(t, reclusterFiles(rs...), orphans(t, tb.Store()))
	rep, err := table.Cleanup(ctx, tb.Store(), table.CleanupOptions{MinAge: -1})
	require.NoError(t, err)
	require.Equal(t, len(reclusterFiles(rs...)), rep.FilesDeleted)
	require.Empty(t, orphans(t, tb.Store()))
	require.Equal(t, rows, scanAll(t, re, mem))
}

// TestReclusterTasksConcurrentWriter: between Plan and Commit, deletes on
// the sources are carried over (the deleted rows stay deleted, through
// the rowmap) and appends are rebased (the new fragment is not
// reclustered); a concurrent rewrite of the sources fails the commit with
// the typed conflict and leaves the other writer's version.
func TestReclusterTasksConcurrentWriter(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	t.Run("delete", func(t *testing.T) {
		tb, rows, r := rwFixture(t, 24, 10, mem)
		plan := reclusterPlan(t, tb)
		rs := executeRecluster(t, tb, plan)
		var del []uint64
		for id := range rows {
			if r.IntN(4) == 0 {
				del = append(del, id)
			}
		}
		t1, _, err := tb.DeleteRowIDs(ctx, del)
		require.NoError(t, err)
		nt, err := t1.CommitRecluster(ctx, plan, rs)
		require.NoError(t, err)
		for _, id := range del {
			delete(rows, id)
		}
		require.Equal(t, rows, scanAll(t, nt, mem))
		require.Equal(t, t1.LiveRows(), nt.LiveRows())
	})
	t.Run("append", func(t *testing.T) {
		tb, _, r := rwFixture(t, 25, 10, mem)
		plan := reclusterPlan(t, tb)
		rs := executeRecluster(t, tb, plan)
		b := rowsBatch(t, mem, genRows(r, 50), nil)
		t1, err := tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
		b.Release()
		require.NoError(t, err)
		want := scanAll(t, t1, mem)
		nt, err := t1.CommitRecluster(ctx, plan, rs)
		require.NoError(t, err)
		require.Equal(t, want, scanAll(t, nt, mem))
		appended := t1.FragmentIDs()[len(t1.FragmentIDs())-1]
		require.NotNil(t, nt.Manifest().Fragment(appended), "the appended fragment stays as it is")
	})
	t.Run("rewrite", func(t *testing.T) {
		tb, rows, _ := rwFixture(t, 26, 10, mem)
		plan := reclusterPlan(t, tb)
		rs := executeRecluster(t, tb, plan)
		t1, err := tb.Recluster(ctx, "score", table.ReclusterOptions{Destinations: 2, Mem: mem})
		require.NoError(t, err)
		_, err = t1.CommitRecluster(ctx, plan, rs)
		require.ErrorIs(t, err, table.ErrConflict)
		require.ErrorIs(t, err, errkind.Conflict)
		re, err := table.Open(ctx, tb.Store(), fixtureOpts)
		require.NoError(t, err)
		require.Equal(t, t1.Version(), re.Version())
		require.Equal(t, rows, scanAll(t, re, mem))
	})
}

// TestReclusterTaskErrors: malformed, foreign and inconsistent plans,
// tasks and results are refused with typed errors, and nothing commits.
func TestReclusterTaskErrors(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, _, _ := rwFixture(t, 27, 10, mem)
	other, _, _ := rwFixture(t, 28, 10, mem)
	plan := reclusterPlan(t, tb)
	oplan := reclusterPlan(t, other)
	rs := executeRecluster(t, tb, plan)
	invalid := func(err error) {
		t.Helper()
		require.ErrorIs(t, err, table.ErrTask)
		require.ErrorIs(t, err, errkind.InvalidArgument)
	}
	src := `"sources":[{"fragment":1,"data_file":"data/a","physical_rows":9,"live_rows":8}]`
	for _, in := range []string{``, `{`, `[]`, `{"format":1,"bogus":1}`,
		`{"format":2,"plan":"p","seq":0,"version":1,"key":"k",` + src + `,"first":0,"bounds":[{"u":1}],"rows":[3]}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"key":"",` + src + `,"first":0,"bounds":[{"u":1}],"rows":[3]}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"key":"k",` + src + `,"first":0,"bounds":[],"rows":[]}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"key":"k",` + src + `,"first":0,"bounds":[{"u":2},{"u":1}],"rows":[3,3]}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"key":"k",` + src + `,"first":0,"bounds":[{"u":1}],"upper":{"u":1},"rows":[3]}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"key":"k",` + src + `,"first":0,"bounds":[{"null":true,"u":1}],"rows":[3]}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"key":"k",` + src + `,"first":0,"bounds":[{"b":""}],"rows":[3]}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"key":"k",` + src + `,"first":0,"bounds":[{"u":1}],"rows":[0]}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"key":"k",` + src + `,"first":0,"bounds":[{"u":1}],"rows":[9]}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"key":"k",` + src + `,"first":65536,"bounds":[{"u":1}],"rows":[3]}`,
		`{"format":1,"plan":"p","seq":0,"version":1,"key":"k",` + src + `,"first":0,"bounds":[{"u":1}],"rows":[3]} {}`} {
		_, err := table.DecodeReclusterTask([]byte(in))
		invalid(err)
	}
	_, err := table.DecodeReclusterResult([]byte(`{"format":1,"plan":"p","seq":0,"files":[]}`))
	invalid(err)
	// A plan whose task does not cover the plan's destinations.
	bad := *plan
	bad.Tasks = plan.Tasks[:2]
	_, err = tb.CommitRecluster(ctx, &bad, rs)
	invalid(err)

	// A task of another table: its sources are not this table's.
	_, err = tb.ExecuteRecluster(ctx, &oplan.Tasks[0], mem)
	invalid(err)
	// A task whose source was tampered with.
	k := plan.Tasks[0]
	k.Sources = slices.Clone(k.Sources)
	k.Sources[0].DeletionDigest++
	_, err = tb.ExecuteRecluster(ctx, &k, mem)
	invalid(err)
	// A task whose row counts do not match the data: refused, no files left.
	before := orphans(t, tb.Store())
	k = plan.Tasks[0]
	k.Rows = slices.Clone(k.Rows)
	k.Rows[0]--
	_, err = tb.ExecuteRecluster(ctx, &k, mem)
	require.ErrorIs(t, err, table.ErrConservation)
	require.Equal(t, before, orphans(t, tb.Store()))
	// Results of another plan.
	ors := executeRecluster(t, other, oplan)
	_, err = tb.CommitRecluster(ctx, plan, ors)
	invalid(err)
	// A result missing a file, or with a file's row count changed.
	short := *rs[0]
	short.Files = short.Files[:len(short.Files)-1]
	_, err = tb.CommitRecluster(ctx, plan, []*table.ReclusterResult{&short, rs[1], rs[2]})
	require.ErrorIs(t, err, table.ErrConservation)
	swapped := *rs[0]
	swapped.Files = slices.Clone(rs[0].Files)
	swapped.Files[0], swapped.Files[1] = swapped.Files[1], swapped.Files[0]
	if swapped.Files[0].Rows != swapped.Files[1].Rows {
		_, err = tb.CommitRecluster(ctx, plan, []*table.ReclusterResult{&swapped, rs[1], rs[2]})
		require.ErrorIs(t, err, table.ErrConservation)
	}
	// A plan from the future of this snapshot.
	later := *plan
	later.Version++
	later.Tasks = slices.Clone(plan.Tasks)
	for i := range later.Tasks {
		later.Tasks[i].Version++
	}
	_, err = tb.CommitRecluster(ctx, &later, rs)
	invalid(err)
	// An unknown key.
	_, err = tb.PlanRecluster(ctx, "nope", table.ReclusterOptions{})
	require.ErrorIs(t, err, table.ErrInvalidArgument)

	re, err := table.Open(ctx, tb.Store(), fixtureOpts)
	require.NoError(t, err)
	require.Equal(t, tb.Version(), re.Version())
}

// FuzzDecodeReclusterTask: the recluster decoders never panic, refuse with
// ErrTask, and what they accept re-encodes to something they accept again
// unchanged.
func FuzzDecodeReclusterTask(f *testing.F) {
	src := `"sources":[{"fragment":1,"data_file":"data/a","physical_rows":9,"live_rows":8,"deletion_digest":7}]`
	f.Add([]byte(`{"format":1,"plan":"p","seq":0,"version":3,"key":"k",` + src + `,"first":0,"bounds":[{"null":true},{"u":5}],"upper":{"u":9},"rows":[2,3]}`))
	f.Add([]byte(`{"format":1,"plan":"p","seq":1,"version":3,"key":"s",` + src + `,"first":2,"bounds":[{"b":"YQ=="},{"b":"Yg=="}],"rows":[4,4]}`))
	f.Add([]byte(`{"format":1,"id":"p","version":3,"key":"k",` + src + `,"bounds":[{"u":1},{"u":4}],"rows":[5,3],"tasks":[{"format":1,"plan":"p","seq":0,"version":3,"key":"k",` + src + `,"first":0,"bounds":[{"u":1}],"upper":{"u":4},"rows":[5]},{"format":1,"plan":"p","seq":1,"version":3,"key":"k",` + src + `,"first":1,"bounds":[{"u":4}],"rows":[3]}]}`))
	f.Add([]byte(`{"format":1,"plan":"p","seq":0,"files":[{"data_file":"data/x","rows":3,"batch_rows":2,"file":{"Size":10,"ID":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16],"TailCRC":1,"Spans":[{"End":5,"CRC":2}]}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if k, err := table.DecodeReclusterTask(b); err == nil {
			require.Equal(t, k, roundTrip(t, k, table.DecodeReclusterTask))
		} else {
			require.ErrorIs(t, err, table.ErrTask)
		}
		if r, err := table.DecodeReclusterResult(b); err == nil {
			require.Equal(t, r, roundTrip(t, r, table.DecodeReclusterResult))
		} else {
			require.ErrorIs(t, err, table.ErrTask)
		}
		if p, err := table.DecodeReclusterPlan(b); err == nil {
			require.Equal(t, p, roundTrip(t, p, table.DecodeReclusterPlan))
		} else {
			require.ErrorIs(t, err, table.ErrTask)
		}
	})
}

// TestReclusterByRowIDAndAllDeleted: a key outside the user columns
// (_rowid: scanned with the rows, not written) gives destinations whose
// ids ascend across fragments; sources with no live row are just removed.
func TestReclusterByRowIDAndAllDeleted(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, rows, _ := rwFixture(t, 30, 10, mem)
	nt, err := tb.Recluster(ctx, "_rowid", table.ReclusterOptions{Destinations: 4, Workers: 2, Mem: mem})
	require.NoError(t, err)
	require.Equal(t, rows, scanAll(t, nt, mem))
	var all []uint64
	for _, f := range layoutOf(nt) {
		all = append(all, f.IDs...)
	}
	require.True(t, slices.IsSorted(all))
	require.Len(t, nt.Fragments(), 4)

	var ids []uint64
	for id := range rows {
		ids = append(ids, id)
	}
	gone, _, err := nt.DeleteRowIDs(ctx, ids)
	require.NoError(t, err)
	plan, err := gone.PlanRecluster(ctx, "k", table.ReclusterOptions{Mem: mem})
	require.NoError(t, err)
	require.Empty(t, plan.Tasks)
	empty, err := gone.CommitRecluster(ctx, roundTrip(t, plan, table.DecodeReclusterPlan), nil)
	require.NoError(t, err)
	require.Empty(t, empty.Fragments())
	require.Empty(t, scanAll(t, empty, mem))
}
