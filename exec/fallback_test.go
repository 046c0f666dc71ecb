package exec_test

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// countingStore counts what is read from data files (opens and bytes);
// it hides the memory store's other interfaces so every read goes
// through Open/Get/GetRange.
type countingStore struct {
	store.Store
	opens, bytes atomic.Int64
}

func isData(p string) bool { return strings.HasPrefix(p, "data/") }

func (c *countingStore) Get(ctx context.Context, p string) ([]byte, error) {
	b, err := c.Store.Get(ctx, p)
	if isData(p) {
		c.bytes.Add(int64(len(b)))
	}
	return b, err
}

func (c *countingStore) GetRange(ctx context.Context, p string, off, n int64) ([]byte, error) {
	if isData(p) {
		c.bytes.Add(n)
	}
	return c.Store.GetRange(ctx, p, off, n)
}

func (c *countingStore) Open(ctx context.Context, p string) (store.Reader, error) {
	r, err := c.Store.Open(ctx, p)
	if err != nil || !isData(p) {
		return r, err
	}
	c.opens.Add(1)
	return &countingReader{Reader: r, n: &c.bytes}, nil
}

type countingReader struct {
	store.Reader
	n *atomic.Int64
}

func (r *countingReader) ReadAt(p []byte, off int64) (int, error) {
	k, err := r.Reader.ReadAt(p, off)
	r.n.Add(int64(k))
	return k, err
}

// fallbackFixture is takeFixture's history (3 indexed fragments, an
// append, deletes, an update moving rows to a new fragment) on a store
// that counts data reads.
func fallbackFixture(t *testing.T) (*table.Table, *mapIndex, *countingStore) {
	cs := &countingStore{Store: store.NewMemory()}
	tb, ix := takeFixtureOn(t, cs)
	return tb, ix, cs
}

// TestFallbackRowIDReadsNoData: ids living outside the index's coverage
// (moved by the update, appended after the build) are resolved from the
// fragments' row id sequences: the take of _rowaddr reads zero bytes of
// data, and its answers match the table's own resolution.
func TestFallbackRowIDReadsNoData(t *testing.T) {
	tb, ix, cs := fallbackFixture(t)
	var ids []*uint64
	for _, v := range []uint64{8, 250, 320, 305, 349, 310, 5, 1, 999, 8} {
		ids = append(ids, &v)
	}
	ids = append(ids, nil)
	want := expectTake(t, tb, ids)
	for i := range want {
		want[i] = want[i][:3] // driving columns and _rowaddr
	}
	for _, index := range []exec.KeyIndex{ix.at(tb), nil} {
		mem := exectest.Mem(t)
		un, err := exec.NewUnnestExec(ids)
		require.NoError(t, err)
		n, err := exec.NewTakeByKeyExec(un, 0, tb, "_rowid", index, []string{"_rowaddr"}, exec.TakeByKeyOptions{})
		require.NoError(t, err)
		cs.opens.Store(0)
		cs.bytes.Store(0)
		out, err := collect(n, &exec.TaskContext{Mem: mem, BatchSize: 4})
		require.NoError(t, err)
		got, err := exectest.Rows(out...)
		require.NoError(t, err)
		for _, b := range out {
			b.Release()
		}
		require.Equal(t, want, got)
		require.Zero(t, cs.opens.Load(), "data files opened")
		require.Zero(t, cs.bytes.Load(), "data bytes read")
		fb := childNamed(t, n, "UnindexedFallbackScan").Metrics().Snapshot()
		require.Positive(t, fb["output_batches"])
		require.Zero(t, fb["data_rows_read"])
	}
}

// TestFallbackScanOtherKey: a take on a column other than _rowid with
// partial (here: no) index coverage streams the key column against the
// probe batch's keys; duplicates in the driving side repeat, and NULL and
// unknown keys miss. Two live rows with one key are ErrNotUnique.
func TestFallbackScanOtherKey(t *testing.T) {
	tb, _, _ := fallbackFixture(t)
	ctx := context.Background()
	byK := map[int64][]any{}
	sc, err := tb.Scan(ctx, table.ScanOptions{Columns: []string{"k", "_rowaddr", "name"}})
	require.NoError(t, err)
	for sc.Next() {
		rows, err := exectest.Rows(sc.RecordBatch())
		require.NoError(t, err)
		for _, r := range rows {
			byK[r[0].(int64)] = r[1:]
		}
	}
	sc.Release()
	var keys []*int64
	for _, v := range []int64{-8, 2500, 80, -320, 3490, 70, 12345, 0, 80} {
		keys = append(keys, &v)
	}
	keys = append(keys, nil)
	var want [][]any
	for i, k := range keys {
		row := []any{nil, int64(i + 1), nil, nil}
		if k != nil {
			row[0] = *k
			if d, ok := byK[*k]; ok {
				row[2], row[3] = d[0], d[1]
			}
		}
		want = append(want, row)
	}
	for _, probe := range []int{0, 3} {
		mem := exectest.Mem(t)
		un, err := exec.NewUnnestExec(keys)
		require.NoError(t, err)
		n, err := exec.NewTakeByKeyExec(un, 0, tb, "k", nil, []string{"_rowaddr", "name"}, exec.TakeByKeyOptions{ProbeBatch: probe})
		require.NoError(t, err)
		out, err := collect(n, &exec.TaskContext{Mem: mem, BatchSize: 2})
		require.NoError(t, err)
		got, err := exectest.Rows(out...)
		require.NoError(t, err)
		for _, b := range out {
			b.Release()
		}
		require.Equal(t, want, got, "probe batch %d", probe)
		fb := childNamed(t, n, "UnindexedFallbackScan").Metrics().Snapshot()
		require.Positive(t, fb["data_rows_read"])
	}

	// A second live row with k = 90.
	mem := exectest.Mem(t)
	b, err := exectest.Batch(mem, takeSchema, [][]any{{int64(90), "again"}})
	require.NoError(t, err)
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	un, err := exec.NewUnnestExec([]int64{70, 90})
	require.NoError(t, err)
	n, err := exec.NewTakeByKeyExec(un, 0, tb, "k", nil, []string{"name"}, exec.TakeByKeyOptions{})
	require.NoError(t, err)
	_, err = collect(n, &exec.TaskContext{Mem: mem})
	require.ErrorIs(t, err, exec.ErrNotUnique)
}

// TestKeyedNodesNeedAProbeBatch: the take's keyed children run only under
// it; on their own they fail with a typed error, not a panic.
func TestKeyedNodesNeedAProbeBatch(t *testing.T) {
	tb, ix := takeFixture(t)
	fb, err := exec.NewUnindexedFallbackScan(tb, "_rowid", tb.FragmentIDs())
	require.NoError(t, err)
	_, err = fb.Execute(context.Background(), &exec.TaskContext{})
	require.ErrorIs(t, err, physexpr.ErrInvalidArgument)
	pr, err := exec.NewIndexProbeExec(ix.at(tb))
	require.NoError(t, err)
	_, err = pr.Execute(context.Background(), &exec.TaskContext{})
	require.ErrorIs(t, err, physexpr.ErrInvalidArgument)
}

// TestFallbackRowIDWorkBoundedByKeys: a take of a few ids that live in a
// large fragment outside the index's coverage costs work in the number of
// ids, not in the fragment's rows: the ids are searched in the fragment's
// row id sequence instead of materializing its ids into a map. Measured
// as heap bytes allocated by the take (a count, not a timing).
func TestFallbackRowIDWorkBoundedByKeys(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	tb, err := table.Create(ctx, store.NewMemory(), schema, table.Options{MaxRowsPerFragment: 1 << 20})
	require.NoError(t, err)
	appendN := func(from, n int) {
		kb := array.NewInt64Builder(mem)
		for i := from; i < from+n; i++ {
			kb.Append(int64(i))
		}
		k := kb.NewArray()
		kb.Release()
		b := array.NewRecordBatch(schema, []arrow.Array{k}, int64(n))
		k.Release()
		tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
		b.Release()
		require.NoError(t, err)
	}
	appendN(0, 1000)
	ix := buildMapIndex(t, tb)
	const big = 300_000
	appendN(1000, big) // one fragment the index does not cover
	ids := []uint64{5, 1000, 1001 + big/2, big + 999, big + 1000, 7}
	un, err := exec.NewUnnestExec(ids)
	require.NoError(t, err)
	n, err := exec.NewTakeByKeyExec(un, 0, tb, "_rowid", ix.at(tb), []string{"_rowaddr"}, exec.TakeByKeyOptions{})
	require.NoError(t, err)
	run := func() [][]any {
		out, err := collect(n, &exec.TaskContext{Mem: mem})
		require.NoError(t, err)
		rows, err := exectest.Rows(out...)
		require.NoError(t, err)
		for _, b := range out {
			b.Release()
		}
		return rows
	}
	rows := run() // warm: lazily built per-snapshot structures
	for i, r := range rows {
		want := ids[i] < 1000+big
		require.Equal(t, want, r[2] != nil, "id %d", ids[i])
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	run()
	runtime.ReadMemStats(&after)
	// A map of the fragment's 300K ids alone would take several MiB.
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<10), "bytes allocated by a 6-id take")
}
