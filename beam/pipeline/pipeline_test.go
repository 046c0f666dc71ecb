package pipeline

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/table"
)

// The tests run every pipeline on Prism in this process (loopback
// workers), against tables on local disk and on an in-process S3 server,
// and compare with the single-process path of the library.

func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	os.Exit(m.Run())
}

var run Runner = prism.Execute

// checkedWorkers makes the DoFns of this process allocate from a checked
// allocator, asserted empty when the test ends.
func checkedWorkers(t *testing.T) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	workerMem = mem
	t.Cleanup(func() {
		workerMem = memory.DefaultAllocator
		mem.AssertSize(t, 0)
	})
	return mem
}

// fixture sizes: -short keeps them small for make test.
func fixtureRows() int {
	if testing.Short() {
		return 6000
	}
	return 60000
}

// makeDB creates table t at loc: fragments of 500 rows, k scrambled, a
// _rowid index and an index on k over the first ones, later fragments
// they do not cover, and deletes in both, so that compaction has two runs
// of several tasks and a recluster by k moves rows.
func makeDB(t *testing.T, loc string) {
	t.Helper()
	ctx := context.Background()
	db, err := engine.Open(loc, engine.Options{Create: true, Table: table.Options{MaxRowsPerFragment: 500}})
	require.NoError(t, err)
	n := fixtureRows()
	for _, q := range []string{
		"CREATE TABLE t (k BIGINT NOT NULL, s TEXT)",
		fmt.Sprintf("INSERT INTO t SELECT (g * 7919) %% %d, 'row ' || CAST(g AS TEXT) FROM generate_series(0, %d) AS g(g)", n, n-1),
		"CREATE INDEX rid ON t USING btree (_rowid)",
		"CREATE INDEX kx ON t USING btree (k)",
		fmt.Sprintf("INSERT INTO t SELECT g, NULL FROM generate_series(%d, %d) AS g(g)", n, n+n/3),
		"DELETE FROM t WHERE k % 7 = 0",
	} {
		res, err := db.Exec(ctx, q, nil)
		require.NoError(t, err, q)
		res.Release()
	}
}

// dump renders the table's rows in row id order, with their ids.
func dump(t *testing.T, loc string) []string {
	return dumpQuery(t, loc, "SELECT _rowid, k, s FROM t ORDER BY _rowid")
}

// dumpQuery renders the rows of a query of three columns.
func dumpQuery(t *testing.T, loc, q string) []string {
	t.Helper()
	db, err := engine.Open(loc, engine.Options{})
	require.NoError(t, err)
	res, err := db.Exec(context.Background(), q, nil)
	require.NoError(t, err)
	defer res.Release()
	var rows []string
	for _, b := range res.Batches {
		for i := range int(b.NumRows()) {
			rows = append(rows, fmt.Sprintf("%s|%s|%s", b.Column(0).ValueStr(i), b.Column(1).ValueStr(i), b.Column(2).ValueStr(i)))
		}
	}
	return rows
}

func openTable(t *testing.T, loc string) *table.Table {
	t.Helper()
	st, err := openTableStore(context.Background(), TableLocation(loc, "t"))
	require.NoError(t, err)
	tb, err := table.Open(context.Background(), st, table.Options{})
	require.NoError(t, err)
	return tb
}

const targetRows = 2000

// singleProcessCompact is the library's in-process path (VACUUM FULL's
// table.Compact) with the pipeline's options.
func singleProcessCompact(t *testing.T, loc string) *table.Table {
	t.Helper()
	nt, err := openTable(t, loc).Compact(context.Background(), table.CompactOptions{TargetRows: targetRows, DeferIndexRemap: true, Workers: 2})
	require.NoError(t, err)
	return nt
}

// takeAll answers a take of every id (and some that do not exist) with
// the single-process path: compaction must not change any answer.
func takeAll(t *testing.T, loc string, mem memory.Allocator) TakeRows {
	t.Helper()
	dir := t.TempDir()
	var ids []uint64
	for i := range uint64(fixtureRows()*4/3 + 50) {
		ids = append(ids, (i*7919)%uint64(fixtureRows()*4/3+50))
	}
	c := TakeConfig{DB: loc, Table: "t", IDs: filepath.Join(dir, "ids.parquet")}
	require.NoError(t, WriteIDs(context.Background(), c.IDs, ids, mem))
	rows, _, err := SingleProcessTake(context.Background(), c, []string{table.RowID, "k", "s"}, mem)
	require.NoError(t, err)
	return rows
}

// compactCase makes two equal databases, compacts one by the pipeline
// and one in process, and checks they hold the same rows with the same
// ids, the same fragments, and answer takes alike.
func compactCase(t *testing.T, locA, locB string, exec ExecOptions) *Report {
	t.Helper()
	mem := checkedWorkers(t)
	makeDB(t, locA)
	makeDB(t, locB)
	before := dump(t, locA)
	require.Equal(t, before, dump(t, locB), "the two fixtures are equal")

	rep, err := Compact(context.Background(), run, CompactConfig{DB: locA, Table: "t", TargetRows: targetRows, Exec: exec})
	require.NoError(t, err)
	want := singleProcessCompact(t, locB)

	require.Greater(t, rep.Tasks, 2, "several tasks")
	require.Greater(t, rep.VersionAfter, rep.VersionBefore, "committed")
	require.Equal(t, want.Version(), rep.VersionAfter, "the versions the in-process commit makes")
	require.Less(t, rep.FragmentsAfter, rep.FragmentsBefore)
	require.Equal(t, len(want.Fragments()), rep.FragmentsAfter, "the same fragments as in process")
	got := openTable(t, locA)
	for i, f := range got.Fragments() {
		w := want.Fragments()[i]
		require.Equal(t, w.PhysicalRows, f.PhysicalRows, "fragment %d", i)
		require.Equal(t, w.LiveRows(), f.LiveRows(), "fragment %d", i)
	}
	after := dump(t, locA)
	require.Equal(t, before, after, "compaction keeps every row and its id")
	require.Equal(t, dump(t, locB), after)
	require.Equal(t, takeAll(t, locB, mem), takeAll(t, locA, mem), "same take answers")
	return rep
}

func TestCompactEqualsSingleProcess(t *testing.T) {
	rep := compactCase(t, t.TempDir(), t.TempDir(), ExecOptions{Workers: 2})
	require.EqualValues(t, rep.Tasks, rep.Metrics.TasksExecuted, "the runner reported one execution per task")
	require.Zero(t, rep.Metrics.AttemptsFailed)
}

// TestCompactRetry: two tasks fail once after writing their files (a
// worker that dies before reporting); the DoFn retries them, the commit
// uses the retries' files, the first attempts' files are orphans.
func TestCompactRetry(t *testing.T) {
	faults := t.TempDir()
	rep := compactCase(t, t.TempDir(), t.TempDir(), ExecOptions{Workers: 3, Faults: Faults{Dir: faults, FailOnce: []int{0, 2}}})
	require.EqualValues(t, 2, rep.Metrics.AttemptsFailed, "two attempts failed")
	require.EqualValues(t, rep.Tasks, rep.Metrics.TasksExecuted)
	marks, err := os.ReadDir(faults)
	require.NoError(t, err)
	require.Len(t, marks, 2, "each injected failure happened once")
}

// TestCompactTwice: every task runs twice (a speculative duplicate);
// the commit takes one result per task: no row is duplicated.
func TestCompactTwice(t *testing.T) {
	rep := compactCase(t, t.TempDir(), t.TempDir(), ExecOptions{Faults: Faults{Twice: true}})
	require.EqualValues(t, 2*rep.Tasks, rep.Metrics.TasksExecuted)
}

// TestCompactCrash: a task that fails every attempt fails the pipeline
// before the commit; the table stays at its last good version, and the
// files the other tasks wrote are orphans Cleanup removes.
func TestCompactCrash(t *testing.T) {
	checkedWorkers(t)
	loc := t.TempDir()
	makeDB(t, loc)
	before := dump(t, loc)
	v := openTable(t, loc).Version()
	_, err := Compact(context.Background(), run, CompactConfig{DB: loc, Table: "t", TargetRows: targetRows,
		Exec: ExecOptions{Workers: 1, Attempts: 2, Faults: Faults{FailAlways: []int{1}}}})
	require.Error(t, err)
	require.Contains(t, err.Error(), "injected task failure")
	tb := openTable(t, loc)
	require.Equal(t, v, tb.Version(), "no commit")
	require.Equal(t, before, dump(t, loc))

	rep, err := table.Cleanup(context.Background(), tb.Store(), table.CleanupOptions{MinAge: -1})
	require.NoError(t, err)
	require.Positive(t, rep.FilesDeleted, "the finished tasks' files were orphans")
	require.Equal(t, before, dump(t, loc), "and nothing the table needs")
}

func TestCompactNothingToDo(t *testing.T) {
	loc := t.TempDir()
	makeDB(t, loc)
	singleProcessCompact(t, loc)
	v := openTable(t, loc).Version()
	rep, err := Compact(context.Background(), run, CompactConfig{DB: loc, Table: "t", TargetRows: targetRows})
	require.NoError(t, err)
	require.Zero(t, rep.Tasks)
	require.Equal(t, v, rep.VersionAfter)
}

// takeIDs are ids in a scrambled order with duplicates, deleted rows and
// ids no row ever had.
func takeIDs() []uint64 {
	n := uint64(fixtureRows() * 4 / 3)
	var ids []uint64
	for i := range n / 2 {
		ids = append(ids, (i*104729)%(n+100))
	}
	return append(ids, 3, 3, 7, n+5000, 1<<40)
}

func takeCase(t *testing.T, db, ids, out string, exec ExecOptions) *TakeReport {
	t.Helper()
	mem := checkedWorkers(t)
	ctx := context.Background()
	require.NoError(t, WriteIDs(ctx, ids, takeIDs(), mem))
	c := TakeConfig{DB: db, Table: "t", IDs: ids, Out: out, MaxTaskRows: 300, Exec: exec}
	rep, err := Take(ctx, run, c)
	require.NoError(t, err)
	require.Greater(t, rep.Tasks, 4)
	require.Len(t, rep.Manifest.Parts, rep.Tasks, "one part per task")
	require.Equal(t, []string{"k", "s", table.RowID}, rep.Manifest.Columns)
	require.Positive(t, rep.Manifest.Missing)
	require.NoError(t, VerifyTake(ctx, c, mem), "the parts equal DB.BulkTake")
	// ord is 1-based (WITH ORDINALITY's numbering): the row of ord o has
	// the id at 0-based position o-1, and _missing.parquet's ords are the
	// positions of the ids without a row plus one.
	got, _, err := ReadTakeOutput(ctx, out, mem)
	require.NoError(t, err)
	in := takeIDs()
	for o, row := range got {
		require.Positive(t, o)
		require.Equal(t, fmt.Sprint(in[o-1]), row[2], "ord %d", o) // k, s, _rowid
	}
	missing, err := ReadIDs(ctx, strings.TrimSuffix(out, "/")+"/"+MissingName, access.OrdColumn, mem) // out may be s3://
	require.NoError(t, err)
	require.Len(t, missing, rep.Manifest.Missing)
	for _, o := range missing {
		require.Positive(t, o)
		require.NotContains(t, got, o, "ord %d is both taken and missing", o)
	}

	_, err = Take(ctx, run, c)
	require.ErrorIs(t, err, ErrConfig, "an output location is written once")
	return rep
}

func TestTakeEqualsBulkTake(t *testing.T) {
	db := t.TempDir()
	makeDB(t, db)
	dir := t.TempDir()
	rep := takeCase(t, db, filepath.Join(dir, "ids.parquet"), filepath.Join(dir, "out"), ExecOptions{Workers: 3})
	require.EqualValues(t, rep.Tasks, rep.Metrics.TasksExecuted)
	require.EqualValues(t, rep.Manifest.Rows, rep.Metrics.RowsWritten)
}

// TestTakeRetryAndTwice: failed first attempts and duplicate executions
// leave exactly one part per task, with no row twice (VerifyTake checks
// every ord appears once).
func TestTakeRetryAndTwice(t *testing.T) {
	db := t.TempDir()
	makeDB(t, db)
	dir := t.TempDir()
	rep := takeCase(t, db, filepath.Join(dir, "ids.parquet"), filepath.Join(dir, "out"),
		ExecOptions{Faults: Faults{Dir: t.TempDir(), FailOnce: []int{1, 4}, Twice: true}})
	require.EqualValues(t, 2, rep.Metrics.AttemptsFailed)
	require.EqualValues(t, 2*rep.Tasks, rep.Metrics.TasksExecuted)
	ents, err := os.ReadDir(filepath.Join(dir, "out"))
	require.NoError(t, err)
	var parts int
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), partPrefix) {
			parts++
		}
	}
	require.Equal(t, rep.Tasks, parts, "no extra files")
}

func TestTakeBadIDs(t *testing.T) {
	ctx := context.Background()
	db := t.TempDir()
	makeDB(t, db)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.parquet")
	require.NoError(t, os.WriteFile(bad, []byte("not parquet at all"), 0o644))
	_, err := Take(ctx, run, TakeConfig{DB: db, Table: "t", IDs: bad, Out: filepath.Join(dir, "o1")})
	require.ErrorIs(t, err, ErrIDs)

	ids := filepath.Join(dir, "ids.parquet")
	require.NoError(t, WriteIDs(ctx, ids, []uint64{1, 2}, memory.DefaultAllocator))
	_, err = Take(ctx, run, TakeConfig{DB: db, Table: "t", IDs: ids, IDColumn: "nope", Out: filepath.Join(dir, "o2")})
	require.ErrorIs(t, err, ErrIDs)
	_, err = Take(ctx, run, TakeConfig{DB: db, Table: "nope", IDs: ids, Out: filepath.Join(dir, "o3")})
	require.Error(t, err)
}
