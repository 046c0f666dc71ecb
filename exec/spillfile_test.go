package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestSpillFile: the one spill-file writer and reader (the sort's runs,
// the aggregation's overflow, the server's uploads) give back the batches
// written, in order and equal (array.RecordEqual, the oracle), with the
// rows counted and the size the file has; a file cut short is an error
// naming it, never a panic; a cancelled read stops with the context's
// error; an aborted writer leaves no open file behind. Zero bytes
// outstanding at the end.
func TestSpillFile(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var want []arrow.RecordBatch
	defer func() {
		for _, b := range want {
			b.Release()
		}
	}()
	for i := range 3 {
		vals := make([]string, 100*(i+1))
		valid := make([]bool, len(vals))
		for j := range vals {
			vals[j], valid[j] = fmt.Sprintf("v%d-%d", i, j), j%7 != 0
		}
		want = append(want, stringBatch(mem, vals, valid))
	}
	schema := want[0].Schema()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.arrows")
	w, err := CreateSpillFile(path, schema, mem)
	require.NoError(t, err)
	for _, b := range want {
		require.NoError(t, w.Write(b))
	}
	size, err := w.Finish()
	require.NoError(t, err)
	require.Equal(t, path, w.Path())
	require.EqualValues(t, 600, w.Rows())
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, st.Size(), size)

	read := func(p string, ctx context.Context) ([]arrow.RecordBatch, error) {
		r, err := OpenSpillFile(p, mem)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		var got []arrow.RecordBatch
		for {
			b, err := r.Next(ctx)
			if errors.Is(err, io.EOF) {
				return got, nil
			}
			if err != nil {
				for _, b := range got {
					b.Release()
				}
				return nil, err
			}
			got = append(got, b)
		}
	}
	got, err := read(path, ctx)
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for i := range got {
		require.True(t, array.RecordEqual(want[i], got[i]), "batch %d", i)
		got[i].Release()
	}

	// Cut short in the middle of a batch: an error naming the file.
	whole, err := os.ReadFile(path)
	require.NoError(t, err)
	cut := filepath.Join(dir, "cut.arrows")
	require.NoError(t, os.WriteFile(cut, whole[:len(whole)*2/3], 0o600))
	_, err = read(cut, ctx)
	require.Error(t, err)
	require.ErrorContains(t, err, cut)
	_, err = read(filepath.Join(dir, "missing.arrows"), ctx)
	require.ErrorIs(t, err, os.ErrNotExist)

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = read(path, cctx)
	require.ErrorIs(t, err, context.Canceled)

	// Abort: the file is closed unfinished (its directory's owner removes it).
	w, err = CreateSpillFile(filepath.Join(dir, "aborted.arrows"), schema, mem)
	require.NoError(t, err)
	require.NoError(t, w.Write(want[0]))
	w.Abort()
	require.ErrorIs(t, w.f.Close(), os.ErrClosed)
}

// stringBatch is a batch of one nullable string column, v, of vals (valid:
// which are not NULL; nil: all).
func stringBatch(mem memory.Allocator, vals []string, valid []bool) arrow.RecordBatch {
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.AppendValues(vals, valid)
	col := sb.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
}
