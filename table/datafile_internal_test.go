package table

import (
	"context"
	"slices"
	"strings"
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
// batch it reads, and the mapping's marks remember both; the other batches stay
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
		cs := fileChecksOf(t, tb, f)
		cs.mu.Lock()
		defer cs.mu.Unlock()
		for _, c := range cs.m {
			out := []bool{c.tail.Load()}
			for i := range c.parts {
				out = append(out, c.parts[i].Load()&markHashed != 0)
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
	// Per batch: the head, then column k.
	require.Equal(t, []bool{true, false, false, true, true, false, false}, marks(), "footer and batch 1 only")
}

// fileChecksOf is the verification marks of f's data file, kept with its
// mapping in tb's store.
func fileChecksOf(t *testing.T, tb *Table, f *Fragment) *fileChecks {
	m, err := tb.st.(store.Mapper).Map(context.Background(), f.DataFile)
	require.NoError(t, err)
	return m.Memo(checksKey{}, func() any { return &fileChecks{m: map[fileKey]*fileCheck{}} }).(*fileChecks)
}

// twoColumnTable is a table of 24 rows (k int64, s string) in batches of 8.
func twoColumnTable(t *testing.T, mem memory.Allocator) *Table {
	ctx := context.Background()
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	tb, err := Create(ctx, store.NewMemory(), sc, Options{BatchRows: 8})
	require.NoError(t, err)
	kb, sb := array.NewInt64Builder(mem), array.NewStringBuilder(mem)
	for i := range 24 {
		kb.Append(int64(i))
		sb.Append(strings.Repeat("x", i))
	}
	k, s := kb.NewArray(), sb.NewArray()
	kb.Release()
	sb.Release()
	b := array.NewRecordBatch(sc, []arrow.Array{k, s}, 24)
	k.Release()
	s.Release()
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	return tb
}

// withFile is a snapshot of tb whose first fragment's DataFileInfo is
// edit's (a manifest that lies about the file, checksums and all).
func withFile(tb *Table, edit func(fi *DataFileInfo, data []byte)) *Table {
	m := tb.m.clone()
	f := *m.Fragments[0]
	f.File.Spans = slices.Clone(f.File.Spans)
	for i := range f.File.Spans {
		f.File.Spans[i].Cols = slices.Clone(f.File.Spans[i].Cols)
	}
	data, err := tb.st.Get(context.Background(), f.DataFile)
	if err != nil {
		panic(err)
	}
	edit(&f.File, data)
	m.Fragments[0] = &f
	return newTable(tb.st, m, tb.opts)
}

func scanErr(t *testing.T, tb *Table, cols []string, mem memory.Allocator) error {
	sc, err := tb.Scan(context.Background(), ScanOptions{Columns: cols, Mem: mem})
	require.NoError(t, err)
	defer sc.Release()
	for sc.Next() {
	}
	return sc.Err()
}

// TestFormatMismatchRefused: a manifest that describes a FormatColumns
// file as FormatSpans (with a correct whole-span CRC) is refused at open:
// the file's schema metadata names its format.
func TestFormatMismatchRefused(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb := twoColumnTable(t, mem)
	require.NoError(t, scanErr(t, tb, []string{"k", "s"}, mem))
	bad := withFile(tb, func(fi *DataFileInfo, data []byte) {
		fi.Format = FormatSpans
		for i := range fi.Spans {
			start, end := fi.span(i)
			fi.Spans[i] = Span{End: end, CRC: crc32c(data[start:end])}
		}
	})
	err := scanErr(t, bad, []string{"k"}, mem)
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), "has format")
}

// TestColumnOutsideItsPartRefused: a manifest whose column parts are cut
// in the wrong place (their CRCs recomputed, so every check passes) does
// not get a column read from bytes outside its verified part: the reader
// checks where arrow-go's buffers lie.
func TestColumnOutsideItsPartRefused(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb := twoColumnTable(t, mem)
	bad := withFile(tb, func(fi *DataFileInfo, data []byte) {
		for i := range fi.Spans {
			sp := &fi.Spans[i]
			// Move 8 bytes of k's part into s's.
			sp.Cols[0].Len -= 8
			sp.Cols[1].Len += 8
			for c := range sp.Cols {
				start, end := fi.partRange(i, 1+c)
				sp.Cols[c].CRC = crc32c(data[start:end])
			}
		}
	})
	err := scanErr(t, bad, []string{"k"}, mem)
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), "outside its checked part")
	err = scanErr(t, bad, []string{"s"}, mem)
	require.NoError(t, err, "s's buffers lie inside its (widened) part")
}

// TestBatchPartsTileTheBody: the parts the writer records tile each span
// and every column's buffers lie inside its own part (also checked on
// every read; here for a table with a nullable string column and nulls).
func TestBatchPartsTileTheBody(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb := twoColumnTable(t, mem)
	f := tb.m.Fragments[0]
	require.Equal(t, FormatColumns, f.File.Format)
	require.NoError(t, f.File.validate(f, 2))
	for i, sp := range f.File.Spans {
		start, end := f.File.span(i)
		sum := sp.Head
		for _, p := range sp.Cols {
			require.NotZero(t, p.Len, "batch %d", i)
			sum += p.Len
		}
		require.Equal(t, end-start, sum, "batch %d", i)
	}
}

// TestMarksLiveWithTheMapping: verification marks belong to the mapped
// bytes and the description they were checked against, not to a
// snapshot. A new snapshot of the same bytes starts from the marks an
// earlier one made (no re-hash per query); new bytes for the path (a
// memory store Put, even of equal bytes) start from none and are hashed
// again, so damaged ones are ErrCorrupt; and a manifest describing the
// same file with other checksums is checked against them, not trusted on
// the marks of the true description.
func TestMarksLiveWithTheMapping(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb := twoColumnTable(t, mem)
	f := tb.m.Fragments[0]
	// hashed lists, per batch, whether its head, k and s are marked.
	hashed := func(tb *Table) []bool {
		m, err := tb.st.(store.Mapper).Map(ctx, f.DataFile)
		require.NoError(t, err)
		c := checksOf(m, &tb.m.Fragments[0].File, tb.m.Schema)
		var out []bool
		for i := range c.parts {
			out = append(out, c.parts[i].Load()&markHashed != 0)
		}
		return out
	}
	none := make([]bool, 9)
	kOnly := []bool{true, true, false, true, true, false, true, true, false}
	require.Equal(t, none, hashed(tb))
	require.NoError(t, scanErr(t, tb, []string{"k"}, mem))
	require.Equal(t, kOnly, hashed(tb))

	tb2, err := Open(ctx, tb.st, Options{})
	require.NoError(t, err)
	require.Equal(t, kOnly, hashed(tb2), "a new snapshot shares the mapping's marks")

	orig, err := tb.st.Get(ctx, f.DataFile)
	require.NoError(t, err)
	require.NoError(t, tb.st.Put(ctx, f.DataFile, orig))
	require.Equal(t, none, hashed(tb2), "new bytes (equal or not) start unverified")
	require.NoError(t, scanErr(t, tb2, []string{"k"}, mem))
	require.Equal(t, kOnly, hashed(tb2))

	bad := slices.Clone(orig)
	start, _ := f.File.partRange(0, 1)
	bad[start+9] ^= 1 // column k's values in batch 0
	require.NoError(t, tb.st.Put(ctx, f.DataFile, bad))
	err = scanErr(t, tb2, []string{"k"}, mem)
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), "column 0 of batch 0")
	require.NoError(t, scanErr(t, tb2, []string{"s"}, mem), "s's parts are intact")

	require.NoError(t, tb.st.Put(ctx, f.DataFile, orig))
	require.NoError(t, scanErr(t, tb, []string{"k", "s"}, mem))
	lying := withFile(tb, func(fi *DataFileInfo, _ []byte) { fi.Spans[1].Cols[0].CRC ^= 1 })
	err = scanErr(t, lying, []string{"k"}, mem)
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), "column 0 of batch 1")
}
