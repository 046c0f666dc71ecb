package exec_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// mapIndex is a reference KeyIndex: every (_rowid, _rowaddr) of the
// covered fragments at build time, stale entries included, like a BTree.
type mapIndex struct {
	m       map[uint64][]uint64
	covered map[uint32]bool
	t       *table.Table // the snapshot Valid and Uncovered answer for (see at)
}

// at binds the index to snapshot tb (nil stays nil).
func (ix *mapIndex) at(tb *table.Table) exec.KeyIndex {
	if ix == nil {
		return nil
	}
	c := *ix
	c.t = tb
	return &c
}

func buildMapIndex(t testing.TB, tb *table.Table) *mapIndex {
	ix := &mapIndex{m: map[uint64][]uint64{}, covered: map[uint32]bool{}}
	sc, err := tb.Scan(context.Background(), table.ScanOptions{Columns: []string{"_rowid", "_rowaddr"}})
	require.NoError(t, err)
	defer sc.Release()
	for sc.Next() {
		b := sc.RecordBatch()
		ids, addrs := b.Column(0).(*array.Uint64), b.Column(1).(*array.Uint64)
		for i := 0; i < ids.Len(); i++ {
			ix.m[ids.Value(i)] = append(ix.m[ids.Value(i)], addrs.Value(i))
		}
	}
	for _, id := range tb.FragmentIDs() {
		ix.covered[id] = true
	}
	return ix
}

func (ix *mapIndex) Probe(_ context.Context, keys arrow.Array) (*exec.ProbeResult, error) {
	k := keys.(*array.Uint64)
	r := &exec.ProbeResult{Addrs: make([]uint64, k.Len()), Found: make([]bool, k.Len())}
	for i := 0; i < k.Len(); i++ {
		if k.IsNull(i) {
			continue
		}
		if as := ix.m[k.Value(i)]; len(as) > 0 {
			r.Addrs[i], r.Found[i] = as[0], true
			if len(as) > 1 {
				r.Multi = append(r.Multi, i)
			}
		}
	}
	return r, nil
}

func (ix *mapIndex) ProbeAll(_ context.Context, keys arrow.Array, i int) ([]uint64, error) {
	return ix.m[keys.(*array.Uint64).Value(i)], nil
}
func (ix *mapIndex) Valid(addrs []uint64, ok []bool) {
	for i, a := range addrs {
		ok[i] = ix.covered[uint32(a>>32)] && ix.t.IsLive(a)
	}
}

func (ix *mapIndex) Uncovered() []uint32 {
	var out []uint32
	for _, id := range ix.t.FragmentIDs() {
		if !ix.covered[id] {
			out = append(out, id)
		}
	}
	return out
}

func (ix *mapIndex) String() string { return "map" }

var takeSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// takeFixture: 3 indexed fragments, then an append, deletes and an update
// (moving rows to an unindexed fragment).
func takeFixture(t testing.TB) (*table.Table, *mapIndex) {
	return takeFixtureOn(t, store.NewMemory())
}

// takeFixtureOn is takeFixture's history on the store st.
func takeFixtureOn(t testing.TB, st store.Store) (*table.Table, *mapIndex) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	tb, err := table.Create(ctx, st, takeSchema, table.Options{MaxRowsPerFragment: 100, BatchRows: 16})
	require.NoError(t, err)
	appendRows := func(from, n int) {
		var rows [][]any
		for i := from; i < from+n; i++ {
			rows = append(rows, []any{int64(i * 10), fmt.Sprint("r", i)})
		}
		b, err := exectest.Batch(mem, takeSchema, rows)
		require.NoError(t, err)
		tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
		b.Release()
		require.NoError(t, err)
	}
	appendRows(0, 300)
	ix := buildMapIndex(t, tb)
	appendRows(300, 50) // unindexed fragment
	tb, _, err = tb.DeleteRowIDs(ctx, []uint64{5, 6, 7, 120, 310})
	require.NoError(t, err)
	ub, err := exectest.Batch(mem, arrow.NewSchema(append([]arrow.Field{{Name: "_rowid", Type: arrow.PrimitiveTypes.Uint64}}, takeSchema.Fields()...), nil),
		[][]any{{uint64(8), int64(-8), "moved8"}, {uint64(250), int64(-250), "moved250"}, {uint64(320), int64(-320), "moved320"}})
	require.NoError(t, err)
	rdr, err := array.NewRecordReader(ub.Schema(), []arrow.RecordBatch{ub})
	require.NoError(t, err)
	tb, _, err = tb.Update(ctx, rdr, mem)
	rdr.Release()
	ub.Release()
	require.NoError(t, err)
	return tb, ix
}

// expectTake is the independent expectation: the table's own row id
// resolution (row id sequences + deletion vectors) and a full scan.
func expectTake(t testing.TB, tb *table.Table, ids []*uint64) [][]any {
	data := map[uint64][]any{}
	sc, err := tb.Scan(context.Background(), table.ScanOptions{Columns: []string{"_rowid", "_rowaddr", "k", "name"}})
	require.NoError(t, err)
	for sc.Next() {
		rows, err := exectest.Rows(sc.RecordBatch())
		require.NoError(t, err)
		for _, r := range rows {
			data[r[0].(uint64)] = r[1:]
		}
	}
	sc.Release()
	var want [][]any
	for i, id := range ids {
		row := []any{nil, int64(i + 1), nil, nil, nil}
		if id != nil {
			row[0] = *id
			if d, ok := data[*id]; ok {
				row[2], row[3], row[4] = d[0], d[1], d[2]
			}
		}
		want = append(want, row)
	}
	return want
}

func TestTakeByKeyExec(t *testing.T) {
	tb, ix := takeFixture(t)
	r := rand.New(rand.NewPCG(4, 4))
	var ids []*uint64
	for range 400 {
		switch x := r.IntN(20); {
		case x == 0:
			ids = append(ids, nil) // NULL key: miss
		case x == 1:
			v := uint64(1000 + r.IntN(10)) // never existed
			ids = append(ids, &v)
		default:
			v := uint64(r.IntN(350)) // covers deleted, moved, unindexed, duplicates
			ids = append(ids, &v)
		}
	}
	for _, v := range []uint64{8, 250, 320, 5, 310, 349, 0} { // the interesting ones for sure
		ids = append(ids, &v)
	}
	want := expectTake(t, tb, ids)
	for _, c := range []struct {
		name  string
		index *mapIndex
		batch int
	}{{"index", ix, 0}, {"index-small-probe-batches", ix, 7}, {"no-index", nil, 0}} {
		t.Run(c.name, func(t *testing.T) {
			for _, cols := range [][]string{{"_rowaddr", "k", "name"}} {
				mem := exectest.Mem(t)
				un, err := exec.NewUnnestExec(ids)
				require.NoError(t, err)
				n, err := exec.NewTakeByKeyExec(un, 0, tb, "_rowid", c.index.at(tb), cols, exec.TakeByKeyOptions{ProbeBatch: c.batch})
				require.NoError(t, err)
				require.True(t, exec.OrderingSatisfies(n.Properties().Ordering, un.Properties().Ordering))
				for _, bs := range []int{1, 3, 8192} {
					got, err := collect(n, &exec.TaskContext{Mem: mem, BatchSize: bs})
					require.NoError(t, err)
					rows, err := exectest.Rows(got...)
					require.NoError(t, err)
					for _, b := range got {
						b.Release()
					}
					require.Equal(t, want, rows, "batch size %d", bs)
				}
				s := n.Metrics().Snapshot()
				require.Positive(t, s["fallback_keys"])
				if c.index != nil {
					// Per probe batch only the two unindexed fragments (the
					// append and the update's moved rows) are searched, through
					// their row id sequences: no data row is read.
					fb := childNamed(t, n, "UnindexedFallbackScan").Metrics().Snapshot()
					require.Positive(t, fb["fragments_searched"])
					require.LessOrEqual(t, fb["fragments_searched"], 2*s["probe_batches"])
					require.Positive(t, fb["sequence_lookups"])
					require.Zero(t, fb["data_rows_read"])
				}
			}
		})
	}
}

func TestTakeByKeyNotUnique(t *testing.T) {
	tb, _ := takeFixture(t)
	mem := exectest.Mem(t)
	// An index claiming two live addresses for id 3.
	bad := &mapIndex{m: map[uint64][]uint64{3: {uint64(rowid.NewAddress(0, 3)), uint64(rowid.NewAddress(0, 4))}}, covered: map[uint32]bool{0: true}}
	un, err := exec.NewUnnestExec([]uint64{1, 3})
	require.NoError(t, err)
	n, err := exec.NewTakeByKeyExec(un, 0, tb, "_rowid", bad.at(tb), []string{"_rowaddr"}, exec.TakeByKeyOptions{})
	require.NoError(t, err)
	_, err = collect(n, &exec.TaskContext{Mem: mem})
	require.True(t, errors.Is(err, exec.ErrNotUnique), "%v", err)
}

func TestTakeByKeyTypeMismatch(t *testing.T) {
	tb, ix := takeFixture(t)
	un, err := exec.NewUnnestExec([]int64{1})
	require.NoError(t, err)
	_, err = exec.NewTakeByKeyExec(un, 0, tb, "_rowid", ix.at(tb), nil, exec.TakeByKeyOptions{})
	require.ErrorIs(t, err, physexpr.ErrSchema)
}

func collect(n exec.Node, tc *exec.TaskContext) ([]arrow.RecordBatch, error) {
	ctx := context.Background()
	st, err := n.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return exec.Collect(ctx, st)
}

// TestTakeByKeyBoundedState: however long the driving input, the take holds
// at most ProbeBatch driving rows (plus one input batch) at a time.
func TestTakeByKeyBoundedState(t *testing.T) {
	tb, ix := takeFixture(t)
	mem := exectest.Mem(t)
	ids := make([]uint64, 20_000)
	for i := range ids {
		ids[i] = uint64(i % 400)
	}
	un, err := exec.NewUnnestExec(ids)
	require.NoError(t, err)
	const probe = 1000
	n, err := exec.NewTakeByKeyExec(un, 0, tb, "_rowid", ix.at(tb), []string{"k"}, exec.TakeByKeyOptions{ProbeBatch: probe})
	require.NoError(t, err)
	const batch = 64
	out, err := collect(n, &exec.TaskContext{Mem: mem, BatchSize: batch})
	require.NoError(t, err)
	rows := 0
	for _, b := range out {
		rows += int(b.NumRows())
		b.Release()
	}
	require.Equal(t, len(ids), rows)
	s := n.Metrics().Snapshot()
	require.LessOrEqual(t, s["max_probe_rows"], int64(probe+batch))
	require.GreaterOrEqual(t, s["probe_batches"], int64(len(ids)/(probe+batch)))
}

// TestTakeByKeyCancel: a cancelled context stops the take at the next
// batch, and closing the stream releases every buffer.
func TestTakeByKeyCancel(t *testing.T) {
	tb, ix := takeFixture(t)
	mem := exectest.Mem(t)
	ids := make([]uint64, 5000)
	for i := range ids {
		ids[i] = uint64(i % 300)
	}
	un, err := exec.NewUnnestExec(ids)
	require.NoError(t, err)
	n, err := exec.NewTakeByKeyExec(un, 0, tb, "_rowid", ix.at(tb), []string{"k", "name"}, exec.TakeByKeyOptions{ProbeBatch: 512})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	st, err := n.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 100})
	require.NoError(t, err)
	b, err := st.Next(ctx)
	require.NoError(t, err)
	b.Release()
	cancel()
	_, err = st.Next(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, st.Close())
	require.Zero(t, mem.CurrentAlloc(), "a cancelled take holds no Arrow memory after Close")
}

// TestTakeByKeyParallelProbe: a probe batch large enough to be split
// across cores gives the same rows as the reference, including keys the
// index holds twice (a dead and a live entry: Multi positions must be
// offset correctly when the parts are merged).
func TestTakeByKeyParallelProbe(t *testing.T) {
	tb, ix := takeFixture(t)
	mem := exectest.Mem(t)
	// Give ids 0..9 a second, dead entry (the address of deleted id 5).
	dead := ix.m[5][0]
	for id := uint64(0); id < 10; id++ {
		if id != 5 {
			ix.m[id] = append(ix.m[id], dead)
		}
	}
	r := rand.New(rand.NewPCG(12, 12))
	ids := make([]*uint64, 150_000)
	for i := range ids {
		v := uint64(r.IntN(360))
		ids[i] = &v
	}
	want := expectTake(t, tb, ids)
	un, err := exec.NewUnnestExec(ids)
	require.NoError(t, err)
	n, err := exec.NewTakeByKeyExec(un, 0, tb, "_rowid", ix.at(tb), []string{"_rowaddr", "k", "name"}, exec.TakeByKeyOptions{})
	require.NoError(t, err)
	out, err := collect(n, &exec.TaskContext{Mem: mem, BatchSize: 8192})
	require.NoError(t, err)
	got, err := exectest.Rows(out...)
	require.NoError(t, err)
	for _, b := range out {
		b.Release()
	}
	require.Equal(t, want, got)
	if runtime.GOMAXPROCS(0) > 1 {
		require.Positive(t, childNamed(t, n, "IndexProbeExec").Metrics().Snapshot()["parallel_probes"])
	}
}

// childNamed returns the first node called name in the plan under n.
func childNamed(t *testing.T, n exec.Node, name string) exec.Node {
	t.Helper()
	var found exec.Node
	var walk func(exec.Node)
	walk = func(x exec.Node) {
		if found != nil {
			return
		}
		if x.Name() == name {
			found = x
			return
		}
		for _, c := range x.Children() {
			walk(c)
		}
	}
	walk(n)
	require.NotNil(t, found, "no %s under %s", name, n.Name())
	return found
}
