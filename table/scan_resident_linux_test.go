package table

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/table/store"
)

// residentKB is the resident set (smaps Rss) of the process's mapping that
// starts at b, in kB.
func residentKB(t *testing.T, b []byte) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	want := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(strings.SplitN(line, " ", 2)[0], "-") {
			in = strings.HasPrefix(line, want)
			continue
		}
		if in && strings.HasPrefix(line, "Rss:") {
			kb, err := strconv.Atoi(strings.Fields(line)[1])
			require.NoError(t, err)
			return kb
		}
	}
	require.NoError(t, sc.Err())
	t.Fatalf("no mapping at %s in /proc/self/smaps", want)
	return 0
}

// TestScanDropsMappedPages: a scan of a local table keeps about one batch
// of each mapped data file resident, not every page it has read, and none
// once it has left the file; arrays that alias dropped pages still read
// their values (the pages come back from the file), on a cold and a warm
// (marks already taken) scan.
func TestScanDropsMappedPages(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	st, err := store.NewLocal(t.TempDir())
	require.NoError(t, err)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	const rows, perFrag, batchRows = 1 << 21, 1 << 20, 4096 // 2 files of 16 MiB, 64 KiB batches
	tb, err := Create(ctx, st, sc, Options{BatchRows: batchRows, MaxRowsPerFragment: perFrag})
	require.NoError(t, err)
	kb, vb := array.NewInt64Builder(mem), array.NewFloat64Builder(mem)
	for i := range rows {
		kb.Append(int64(i))
		vb.Append(float64(i) / 2)
	}
	k, v := kb.NewArray(), vb.NewArray()
	kb.Release()
	vb.Release()
	in := array.NewRecordBatch(sc, []arrow.Array{k, v}, rows)
	k.Release()
	v.Release()
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{in}, mem)
	in.Release()
	require.NoError(t, err)
	require.Len(t, tb.Fragments(), 2)

	var maps [][]byte
	for _, f := range tb.Fragments() {
		m, err := st.Map(ctx, f.DataFile)
		require.NoError(t, err)
		require.Greater(t, len(m.Data), 4<<20)
		maps = append(maps, m.Data)
	}
	// One batch is 64 KiB; allow a few, plus three large folios of the
	// page cache (up to 2 MiB each, which the kernel maps whole on a fault:
	// the footer's, and two the current batch may straddle): far below the
	// 16 MiB of a file.
	const boundKB = 4*batchRows*16/1024 + 3*2048
	for pass := range 2 {
		s, err := tb.Scan(ctx, ScanOptions{Columns: []string{"k", "v"}, Mem: mem})
		require.NoError(t, err)
		var first arrow.RecordBatch // held across the whole scan
		var n int64
		for s.Next() {
			b := s.RecordBatch()
			ks := b.Column(0).(*array.Int64).Int64Values()
			vs := b.Column(1).(*array.Float64).Float64Values()
			for j := range ks {
				if ks[j] != n || vs[j] != float64(n)/2 {
					t.Fatalf("pass %d: row %d is (%d, %v)", pass, n, ks[j], vs[j])
				}
				n++
			}
			if first == nil {
				first = b
				first.Retain()
			}
			if n%(8*batchRows) != 0 {
				continue // reading smaps is the slow part of this test
			}
			for _, d := range maps[:min(len(maps), (int(n)-1)/perFrag+1)] {
				require.LessOrEqual(t, residentKB(t, d), boundKB, "pass %d, after %d rows", pass, n)
			}
		}
		require.NoError(t, s.Err())
		require.Equal(t, int64(rows), n)
		s.Release()
		for _, d := range maps {
			require.Zero(t, residentKB(t, d), "pass %d: after the scan", pass)
		}
		ks := first.Column(0).(*array.Int64).Int64Values()
		for j := range ks {
			if ks[j] != int64(j) {
				t.Fatalf("pass %d: the first batch's row %d now reads %d", pass, j, ks[j])
			}
		}
		first.Release()
	}
}
