package exec_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/index/fragreuse"
	"github.com/stablerow/stablerow/table"
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
