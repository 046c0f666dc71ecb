package exec_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// TestScanPartitionsSplitFragments: partitions cut a scan at batch
// boundaries, inside fragments too, so a one-fragment table scans in n
// partitions; their concatenation in order is the unpartitioned output
// (with deleted rows left out and a fragment subset respected), and no
// partition is empty.
func TestScanPartitionsSplitFragments(t *testing.T) {
	ctx := context.Background()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for _, tc := range []struct {
		rows, maxRows int
		fragments     []uint32
	}{
		{100, 1000, nil}, // one fragment of 7 batches
		{100, 40, nil},   // fragments of 40, 40, 20
		{100, 40, []uint32{2, 0}},
		{10, 1000, nil}, // one batch: one partition
		{0, 1000, nil},  // empty
	} {
		t.Run(fmt.Sprintf("%d rows max %d frags %v", tc.rows, tc.maxRows, tc.fragments), func(t *testing.T) {
			mem := exectest.Mem(t)
			tb, err := table.Create(ctx, store.NewMemory(), schema, table.Options{MaxRowsPerFragment: tc.maxRows, BatchRows: 16})
			require.NoError(t, err)
			if tc.rows > 0 {
				kb := array.NewInt64Builder(mem)
				for i := range tc.rows {
					kb.Append(int64(i))
				}
				k := kb.NewArray()
				kb.Release()
				b := array.NewRecordBatch(schema, []arrow.Array{k}, int64(tc.rows))
				k.Release()
				tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
				b.Release()
				require.NoError(t, err)
				var dead []uint64
				for _, f := range tb.Fragments() {
					for _, off := range []uint64{5, 33} {
						if off < f.PhysicalRows {
							dead = append(dead, uint64(f.ID)<<32|off)
						}
					}
				}
				tb, _, err = tb.DeleteAddrs(ctx, dead)
				require.NoError(t, err)
			}
			tc2 := &exec.TaskContext{Mem: mem}
			scan, err := exec.NewScanExec(tb, []string{"k", "_rowaddr"}, tc.fragments)
			require.NoError(t, err)
			st, err := scan.Execute(ctx, tc2)
			require.NoError(t, err)
			bs, err := exec.Collect(ctx, st)
			require.NoError(t, err)
			st.Close()
			want, err := exectest.Rows(bs...)
			require.NoError(t, err)
			for _, b := range bs {
				b.Release()
			}
			batches := 0
			for _, f := range tb.Fragments() {
				if tc.fragments == nil || slices.Contains(tc.fragments, f.ID) {
					batches += int((f.PhysicalRows + 15) / 16)
				}
			}
			for _, n := range []int{1, 2, 3, 4, 16} {
				p := scan.WithPartitions(n)
				require.Equal(t, max(1, min(n, batches)), p.OutputPartitions(), "n=%d", n)
				ss, err := p.ExecutePartitions(ctx, tc2)
				require.NoError(t, err)
				parts, err := drainAll(ctx, ss)
				require.NoError(t, err)
				var got [][]any
				for i, part := range parts {
					if p.OutputPartitions() > 1 {
						require.NotEmpty(t, part, "n=%d partition %d", n, i)
					}
					got = append(got, part...)
				}
				require.Equal(t, want, got, "n=%d", n)
			}
		})
	}
}
