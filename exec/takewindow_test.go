package exec_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// TestTakeSystemColumnsWindow: the seed take (only _rowaddr asked for,
// keys outside the index found through row id sequences) holds a window of
// DefaultSystemProbeBatch driving rows at a time, not the 1M of a take
// that reads data files: its Arrow memory peaks at a few windows' worth
// however many ids drive it, and every answer is exact. Before, 1M ids
// were gathered, concatenated and probed at once (some 24 MB of Arrow
// buffers here, and the probe's scratch beside them).
func TestTakeSystemColumnsWindow(t *testing.T) {
	ctx := context.Background()
	checked := exectest.Mem(t)
	mem := &arrowtest.PeakAllocator{Allocator: checked}
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	const rows, frag = 1 << 19, 1 << 16
	tb, err := table.Create(ctx, store.NewMemory(), schema, table.Options{MaxRowsPerFragment: frag})
	require.NoError(t, err)
	for from := 0; from < rows; from += frag {
		kb := array.NewInt64Builder(checked)
		for i := from; i < from+frag; i++ {
			kb.Append(int64(i))
		}
		k := kb.NewArray()
		kb.Release()
		rb := array.NewRecordBatch(schema, []arrow.Array{k}, int64(k.Len()))
		k.Release()
		tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{rb}, checked)
		rb.Release()
		require.NoError(t, err)
	}
	// The index covers the first fragment; the rest is the fallback's,
	// through row id sequences (no data read).
	ix := &mapIndex{m: map[uint64][]uint64{}, covered: map[uint32]bool{}}
	first := tb.FragmentIDs()[0]
	ix.covered[first] = true
	for id := uint64(0); id < frag; id++ {
		ix.m[id] = []uint64{uint64(first)<<32 | id}
	}
	n := 1 << 20
	if testing.Short() {
		n = 600_000
	}
	r := rand.New(rand.NewPCG(26, 7))
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = r.Uint64N(rows + rows/20) // ~5% never assigned
	}
	un, err := exec.NewUnnestExec(ids)
	require.NoError(t, err)
	take, err := exec.NewTakeByKeyExec(un, 0, tb, "_rowid", ix.at(tb), []string{"_rowaddr"}, exec.TakeByKeyOptions{})
	require.NoError(t, err)
	const batch = 4096
	st, err := take.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: batch})
	require.NoError(t, err)
	got, hits := 0, 0
	for {
		b, err := st.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		ord, addr := b.Column(1).(*array.Int64), b.Column(2).(*array.Uint64)
		for i := 0; i < int(b.NumRows()); i++ {
			id := ids[ord.Value(i)-1]
			require.Equal(t, int64(got+1), ord.Value(i), "driving order")
			if id >= rows {
				require.True(t, addr.IsNull(i), "id %d was never assigned", id)
			} else {
				require.False(t, addr.IsNull(i), "id %d", id)
				rid, ok := tb.RowIDAt(addr.Value(i))
				require.True(t, ok && rid == id, "id %d answered with address %#x (row id %d)", id, addr.Value(i), rid)
				hits++
			}
			got++
		}
		b.Release()
	}
	require.NoError(t, st.Close())
	require.Equal(t, n, got)
	require.Greater(t, hits, n*9/10)
	s := take.Metrics().Snapshot()
	require.LessOrEqual(t, s["max_probe_rows"], int64(exec.DefaultSystemProbeBatch+batch))
	// Per driving row of the window: its value and ordinality (16 bytes)
	// and the concatenated keys (8); the window is taken twice for the
	// probe's pairs, the output under construction and the input batch
	// that overshoots it.
	bound := int64(2 * 24 * (exec.DefaultSystemProbeBatch + batch))
	t.Logf("peak Arrow memory %d bytes, bound %d", mem.Peak(), bound)
	require.LessOrEqual(t, mem.Peak(), bound, "peak Arrow memory of a take of %d ids", n)
	require.Zero(t, checked.CurrentAlloc())
}
