package pipeline

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
)

// scanOrder renders the rows in the order a scan returns them: the
// physical layout a recluster makes.
func scanOrder(t *testing.T, loc string) []string {
	return dumpQuery(t, loc, "SELECT _rowid, k, s FROM t")
}

func openDB(t *testing.T, loc string) *engine.DB {
	t.Helper()
	db, err := engine.Open(loc, engine.Options{Workers: 2})
	require.NoError(t, err)
	return db
}

// TestReclusterEqualsCluster: CLUSTER t USING kx by the pipeline (2
// tasks, one failing once) and by the engine (its local workers) make the
// same layout, the same row ids and the same take answers.
func TestReclusterEqualsCluster(t *testing.T) {
	mem := checkedWorkers(t)
	ctx := context.Background()
	a, b := t.TempDir(), t.TempDir()
	makeDB(t, a)
	makeDB(t, b)
	before := dump(t, a)

	rep, err := Recluster(ctx, run, ReclusterConfig{DB: a, Table: "t", Index: "kx",
		Exec: ExecOptions{Workers: 2, Faults: Faults{Dir: t.TempDir(), FailOnce: []int{1}}}})
	require.NoError(t, err)
	require.Equal(t, 2, rep.Tasks)
	require.EqualValues(t, 1, rep.Metrics.AttemptsFailed)
	require.NoError(t, openDB(t, b).Cluster(ctx, "t", "kx"))

	require.Greater(t, rep.VersionAfter, rep.VersionBefore)
	require.Equal(t, before, dump(t, a), "every row keeps its id")
	require.Equal(t, scanOrder(t, b), scanOrder(t, a), "the same layout as CLUSTER")
	require.NotEqual(t, before, scanOrder(t, a), "rows moved")
	require.Equal(t, len(openTable(t, b).Fragments()), rep.FragmentsAfter)
	require.Equal(t, takeAll(t, b, mem), takeAll(t, a, mem))

	_, err = Recluster(ctx, run, ReclusterConfig{DB: a, Table: "t", Index: "nope"})
	require.ErrorIs(t, err, ErrConfig)
}

// TestIndexJobsEqualEngine: after a compaction, OPTIMIZE INDEX and CREATE
// INDEX by the pipeline (tasks run twice) and by the engine give indexes
// of the same coverage and the same answers.
func TestIndexJobsEqualEngine(t *testing.T) {
	mem := checkedWorkers(t)
	ctx := context.Background()
	a, b := t.TempDir(), t.TempDir()
	makeDB(t, a)
	makeDB(t, b)
	_, err := Compact(ctx, run, CompactConfig{DB: a, Table: "t", TargetRows: targetRows})
	require.NoError(t, err)
	singleProcessCompact(t, b)

	rep, err := Index(ctx, run, IndexConfig{DB: a, Table: "t", Name: "rid", Optimize: true,
		Exec: ExecOptions{Workers: 2, Faults: Faults{Twice: true}}})
	require.NoError(t, err)
	require.Positive(t, rep.Tasks)
	require.EqualValues(t, 2*rep.Tasks, rep.Metrics.TasksExecuted)
	require.NoError(t, openDB(t, b).OptimizeIndex(ctx, "t", "rid"))

	rep, err = Index(ctx, run, IndexConfig{DB: a, Table: "t", Name: "sx", Column: "s", Exec: ExecOptions{Workers: 3}})
	require.NoError(t, err)
	require.Equal(t, 3, rep.Tasks)
	require.NoError(t, openDB(t, b).CreateIndex(ctx, "t", "sx", "s"))

	ta, tb := openTable(t, a), openTable(t, b)
	for _, name := range []string{"rid", "sx"} {
		ma, mb := ta.Index(name), tb.Index(name)
		require.NotNil(t, ma, name)
		require.NotNil(t, mb, name)
		require.Equal(t, mb.Column, ma.Column)
		require.Equal(t, mb.Unique, ma.Unique)
		require.Equal(t, mb.Fragments.ToArray(), ma.Fragments.ToArray(), "%s covers the same fragments", name)
	}
	require.Equal(t, takeAll(t, b, mem), takeAll(t, a, mem))
	q := "SELECT _rowid, k, s FROM t WHERE s = 'row 12' OR s = 'row 4999' OR s IS NULL ORDER BY _rowid"
	require.Equal(t, dumpQuery(t, b, q), dumpQuery(t, a, q))
	require.NotEmpty(t, dumpQuery(t, a, q))

	_, err = Index(ctx, run, IndexConfig{DB: a, Table: "t", Name: "sx", Column: "s"})
	require.Error(t, err, "the index exists")
}
