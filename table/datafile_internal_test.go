package table

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// fakeFile is a DataFileInfo that passes manifest validation for a
// fragment of rows rows in batches of batchRows, for manifests built by
// hand (no data file is read).
func fakeFile(rows, batchRows uint64) DataFileInfo {
	fi := DataFileInfo{}
	for i := range batchCount(rows, batchRows) {
		fi.Spans = append(fi.Spans, Span{End: 100 * (i + 1)})
	}
	fi.Size = fi.tailStart() + 100
	return fi
}

// BenchmarkSpanCRC is the hashing a cold read adds per batch: one CRC32C
// over a 4096-row batch of two 8-byte columns (the bench table's shape).
func BenchmarkSpanCRC(b *testing.B) {
	buf := make([]byte, 4096*16+256)
	for i := range buf {
		buf[i] = byte(i * 31)
	}
	b.SetBytes(int64(len(buf)))
	for range b.N {
		_ = crc32c(buf)
	}
}

// TestTakeVerifiesOnlyItsBatch: a point take hashes the footer and the one
// batch it reads, and the snapshot remembers both; the other batches stay
// unverified until something reads them.
func TestTakeVerifiesOnlyItsBatch(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	tb, err := Create(ctx, store.NewMemory(), sc, Options{BatchRows: 8})
	require.NoError(t, err)
	kb := array.NewInt64Builder(mem)
	for i := range 24 {
		kb.Append(int64(i))
	}
	k := kb.NewArray()
	kb.Release()
	b := array.NewRecordBatch(sc, []arrow.Array{k}, 24)
	k.Release()
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	f := tb.Fragments()[0]
	marks := func() []bool {
		tb.checks.mu.Lock()
		defer tb.checks.mu.Unlock()
		for key, c := range tb.checks.m {
			require.Equal(t, f.DataFile, key.path)
			out := []bool{c.tail.Load()}
			for i := range c.spans {
				out = append(out, c.spans[i].Load())
			}
			return out
		}
		return nil
	}
	require.Nil(t, marks())
	out, err := tb.Take(ctx, []uint64{uint64(rowid.NewAddress(f.ID, 10))}, nil, []string{"k"}, mem)
	require.NoError(t, err)
	require.Equal(t, int64(10), out.Column(0).(*array.Int64).Value(0))
	out.Release()
	require.Equal(t, []bool{true, false, true, false}, marks(), "footer and batch 1 only")
}
