package exec_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/fragreuse"
)

// TestRowAddrRemapExec: addresses read before a deferred compaction are
// translated to where the same row ids live after it (checked with the
// table's own Locate); rows deleted before the rewrite are dropped or
// nulled as asked.
func TestRowAddrRemapExec(t *testing.T) {
	ctx := context.Background()
	tb, _ := takeFixture(t) // fragments 0-2 indexed, 3 appended, 4 updated rows; some deletions
	before := tb
	var rows [][]any
	sc, err := before.Scan(ctx, table.ScanOptions{Columns: []string{"_rowid", "_rowaddr"}, WithDeleted: true})
	require.NoError(t, err)
	for sc.Next() {
		rs, err := exectest.Rows(sc.RecordBatch())
		require.NoError(t, err)
		rows = append(rows, rs...)
	}
	sc.Release()
	after, err := before.Compact(ctx, table.CompactOptions{TargetRows: 1000, MinDeletedFraction: 0.001, DeferIndexRemap: true})
	require.NoError(t, err)
	hist, err := after.History()
	require.NoError(t, err)
	h, err := fragreuse.Open(ctx, after.Store(), hist, before.Version())
	require.NoError(t, err)
	defer h.Close()
	require.Positive(t, h.Len())

	schema := arrow.NewSchema([]arrow.Field{{Name: "_rowid", Type: arrow.PrimitiveTypes.Uint64}, {Name: "_rowaddr", Type: arrow.PrimitiveTypes.Uint64}}, nil)
	for _, mode := range []exec.RemapMode{exec.RemapDrop, exec.RemapNull} {
		mem := exectest.Mem(t)
		b, err := exectest.Batch(mem, schema, rows)
		require.NoError(t, err)
		vals, err := exec.NewValuesExec(schema, []arrow.RecordBatch{b})
		b.Release()
		require.NoError(t, err)
		n, err := exec.NewRowAddrRemapExec(vals, 1, h, mode)
		require.NoError(t, err)
		out, err := collect(n, &exec.TaskContext{Mem: mem, BatchSize: 37})
		require.NoError(t, err)
		got, err := exectest.Rows(out...)
		require.NoError(t, err)
		for _, o := range out {
			o.Release()
		}
		vals.Release()
		var want [][]any
		for _, r := range rows {
			id, addr := r[0].(uint64), r[1].(uint64)
			if !before.IsLive(addr) {
				if mode == exec.RemapNull {
					want = append(want, []any{id, nil})
				}
				continue
			}
			a, found := after.Locate([]uint64{id})
			require.True(t, found[0])
			want = append(want, []any{id, a[0]})
		}
		require.Equal(t, want, got)
	}
}

// TestRowAddrRemapExecCounters: the node's metrics say how it translated.
// A dense ascending run of addresses through a recluster's rowmap is one
// sweep (rowmap_swept, blocks read); a handful of addresses are point
// lookups (rowmap_point); after a compaction the ordered step sweeps
// sorted input. Answers are checked against the table's own Locate.
func TestRowAddrRemapExecCounters(t *testing.T) {
	ctx := context.Background()
	before, _ := takeFixture(t)
	var rows [][]any
	sc, err := before.Scan(ctx, table.ScanOptions{Columns: []string{"_rowid", "_rowaddr"}})
	require.NoError(t, err)
	for sc.Next() {
		rs, err := exectest.Rows(sc.RecordBatch())
		require.NoError(t, err)
		rows = append(rows, rs...)
	}
	sc.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "_rowid", Type: arrow.PrimitiveTypes.Uint64}, {Name: "_rowaddr", Type: arrow.PrimitiveTypes.Uint64}}, nil)
	run := func(after *table.Table, rows [][]any, batch int) map[string]int64 {
		hist, err := after.History()
		require.NoError(t, err)
		h, err := fragreuse.Open(ctx, after.Store(), hist, before.Version())
		require.NoError(t, err)
		defer h.Close()
		mem := exectest.Mem(t)
		b, err := exectest.Batch(mem, schema, rows)
		require.NoError(t, err)
		vals, err := exec.NewValuesExec(schema, []arrow.RecordBatch{b})
		b.Release()
		require.NoError(t, err)
		defer vals.Release()
		n, err := exec.NewRowAddrRemapExec(vals, 1, h, exec.RemapDrop)
		require.NoError(t, err)
		out, err := collect(n, &exec.TaskContext{Mem: mem, BatchSize: batch})
		require.NoError(t, err)
		got, err := exectest.Rows(out...)
		require.NoError(t, err)
		for _, o := range out {
			o.Release()
		}
		require.Len(t, got, len(rows))
		for _, g := range got {
			a, found := after.Locate([]uint64{g[0].(uint64)})
			require.True(t, found[0])
			require.Equal(t, a[0], g[1])
		}
		return n.Metrics().Snapshot()
	}
	recl, err := before.Recluster(ctx, "name", table.ReclusterOptions{Destinations: 3, DeferIndexRemap: true})
	require.NoError(t, err)
	s := run(recl, rows, 8192)
	require.Equal(t, int64(len(rows)), s["rowmap_swept"])
	require.Positive(t, s["rowmap_blocks"])
	require.Zero(t, s["rowmap_point"])
	s = run(recl, rows[:5], 8192)
	require.Equal(t, int64(5), s["rowmap_point"])
	require.Equal(t, int64(1), s["rowmap_blocks"])

	before, _ = takeFixture(t) // the same table again: the recluster removed its fragments
	comp, err := before.Compact(ctx, table.CompactOptions{TargetRows: 1000, MinDeletedFraction: 0.001, DeferIndexRemap: true})
	require.NoError(t, err)
	s = run(comp, rows, 8192)
	require.Positive(t, s["ordered_swept"])
	require.Zero(t, s["rowmap_swept"]+s["rowmap_point"])
}
