package table_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// testdata/format1 is a table written before data files had per-column
// checksums (manifest format version 2, FormatSpans files), by the code of
// commit 78c281c: format1Rows(100) appended with MaxRowsPerFragment 40 and
// BatchRows 16 (fragments of 40, 40 and 20 rows), then offsets 3 and 17 of
// fragment 0 and 5 of fragment 1 (rows 3, 17 and 45) deleted.
var format1Schema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "d", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}},
	{Name: "t", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
}, nil)

var format1Opts = table.Options{MaxRowsPerFragment: 40, BatchRows: 16}

func format1Rows(mem memory.Allocator, from, n int) arrow.RecordBatch {
	bld := array.NewRecordBuilder(mem, format1Schema)
	defer bld.Release()
	for i := from; i < from+n; i++ {
		bld.Field(0).(*array.Int64Builder).Append(int64(i * 3))
		if i%5 == 0 {
			bld.Field(1).AppendNull()
		} else {
			bld.Field(1).(*array.StringBuilder).Append(string(rune('a'+i%26)) + "-row")
		}
		bld.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i*101 - 500)))
		if i%7 == 0 {
			bld.Field(3).AppendNull()
		} else {
			bld.Field(3).(*array.Date32Builder).Append(arrow.Date32(19000 + i))
		}
	}
	return bld.NewRecordBatch()
}

// format1Want is the oracle: the rows of format1Rows [0, n) but the
// deleted ones, as exectest.Rows gives them, with _rowid (= the row).
func format1Want(t *testing.T, n int) [][]any {
	mem := exectest.Mem(t)
	b := format1Rows(mem, 0, n)
	defer b.Release()
	rows, err := valueRows(b)
	require.NoError(t, err)
	var out [][]any
	for i, r := range rows {
		if i != 3 && i != 17 && i != 45 {
			out = append(out, append(r, fmt.Sprint(i)))
		}
	}
	return out
}

// valueRows renders a batch's rows as value strings (nil for null), the
// form both the oracle and the reads are compared in.
func valueRows(b arrow.RecordBatch) ([][]any, error) {
	out := make([][]any, b.NumRows())
	for i := range out {
		out[i] = make([]any, b.NumCols())
		for c, col := range b.Columns() {
			if col.IsValid(i) {
				out[i][c] = col.ValueStr(i)
			}
		}
	}
	return out, nil
}

// copyFormat1 copies the committed table into a fresh local store (tests
// write to it).
func copyFormat1(t *testing.T) (string, store.Store) {
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/format1")))
	st, err := store.NewLocal(dir)
	require.NoError(t, err)
	return dir, st
}

func format1Scan(ctx context.Context, tb *table.Table, cols []string, mem memory.Allocator) ([][]any, error) {
	s, err := tb.Scan(ctx, table.ScanOptions{Columns: cols, Mem: mem})
	if err != nil {
		return nil, err
	}
	defer s.Release()
	var out [][]any
	for s.Next() {
		rows, err := valueRows(s.RecordBatch())
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, s.Err()
}

var format1Cols = []string{"k", "s", "d", "t", "_rowid"}

// TestFormatSpansTableReads: the table written with whole-span checksums
// still scans, takes and appends (its new files get per-column checksums,
// the old ones keep theirs), and damage to an old file is still ErrCorrupt.
func TestFormatSpansTableReads(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	dir, st := copyFormat1(t)
	tb, err := table.Open(ctx, st, format1Opts)
	require.NoError(t, err)
	require.Len(t, tb.Fragments(), 3)
	for _, f := range tb.Fragments() {
		require.Equal(t, table.FormatSpans, f.File.Format)
	}
	want := format1Want(t, 100)
	got, err := format1Scan(ctx, tb, format1Cols, mem)
	require.NoError(t, err)
	require.Equal(t, want, got)
	b, err := tb.Take(ctx, []uint64{uint64(rowid.NewAddress(1, 38)), uint64(rowid.NewAddress(0, 2))}, nil, format1Cols, mem)
	require.NoError(t, err)
	rows, err := valueRows(b)
	b.Release()
	require.NoError(t, err)
	require.Equal(t, [][]any{want[78-3], want[2]}, rows) // row 78 is 75th live (3, 17, 45 deleted)

	// Append 30 more rows: a new FormatColumns file next to the old ones.
	nb := format1Rows(mem, 100, 30)
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{nb}, mem)
	nb.Release()
	require.NoError(t, err)
	require.Len(t, tb.Fragments(), 4)
	require.Equal(t, table.FormatColumns, tb.Fragments()[3].File.Format)
	tb, err = table.Open(ctx, st, format1Opts) // through the new (version 3) manifest
	require.NoError(t, err)
	require.Equal(t, table.FormatSpans, tb.Fragments()[0].File.Format)
	require.Equal(t, table.FormatColumns, tb.Fragments()[3].File.Format)
	all := format1Want(t, 130)
	got, err = format1Scan(ctx, tb, format1Cols, mem)
	require.NoError(t, err)
	require.Equal(t, all, got)

	// A flipped byte in an old file's batch body: ErrCorrupt naming it,
	// even when the scan reads one column. The damage is done to a fresh
	// copy, before this process maps it: verification marks live as long
	// as a mapping, and the files above are mapped and verified.
	dir, st = copyFormat1(t)
	f := tb.Fragments()[1]
	p := filepath.Join(dir, filepath.FromSlash(f.DataFile))
	orig, err := os.ReadFile(p)
	require.NoError(t, err)
	c := bytes.Clone(orig)
	c[f.File.Spans[1].End-20] ^= 0x40
	require.NoError(t, os.WriteFile(p, c, 0o644))
	tb, err = table.Open(ctx, st, format1Opts)
	require.NoError(t, err)
	_, err = format1Scan(ctx, tb, []string{"k"}, mem)
	requireCorrupt(t, err, f.DataFile, "old file, one byte flipped")
}

// TestScanChecksOnlyItsColumns: in a FormatColumns or FormatEncoded file a
// flipped byte in one column's part fails a read of that column and only
// of it; the others read their exact rows. A flip in a batch's head fails
// every read.
func TestScanChecksOnlyItsColumns(t *testing.T) {
	for _, format := range []table.DataFormat{table.FormatColumns, table.FormatEncoded} {
		t.Run(fmt.Sprint("format ", format), func(t *testing.T) { scanChecksOnlyItsColumns(t, format) })
	}
}

func scanChecksOnlyItsColumns(t *testing.T, format table.DataFormat) {
	ctx := context.Background()
	opts := format1Opts
	opts.EncodedDataFiles = format == table.FormatEncoded
	for name, st := range map[string]store.Store{"mapped": store.NewMemory(), "ranges": rangeStore{store.NewMemory()}} {
		t.Run(name, func(t *testing.T) {
			mem := exectest.Mem(t)
			tb, err := table.Create(ctx, st, format1Schema, opts)
			require.NoError(t, err)
			b := format1Rows(mem, 0, 40)
			tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
			b.Release()
			require.NoError(t, err)
			f := tb.Fragments()[0]
			require.Equal(t, format, f.File.Format)
			orig, err := st.Get(ctx, f.DataFile)
			require.NoError(t, err)
			full := func() [][]any { // nothing deleted in this table
				b := format1Rows(mem, 0, 40)
				defer b.Release()
				rows, err := valueRows(b)
				require.NoError(t, err)
				return rows
			}()
			sp := f.File.Spans[1]
			start := f.File.Spans[0].End
			off := start + sp.Head
			for c, part := range sp.Cols {
				what := fmt.Sprintf("column %d part flipped", c)
				bad := bytes.Clone(orig)
				bad[off+part.Len/2] ^= 0x01
				off += part.Len
				require.NoError(t, st.Put(ctx, f.DataFile, bad))
				tb, err := table.Open(ctx, st, format1Opts)
				require.NoError(t, err)
				for oc, name := range format1Schema.Fields() {
					got, err := format1Scan(ctx, tb, []string{name.Name}, mem)
					if oc == c {
						requireCorrupt(t, err, f.DataFile, what)
						continue
					}
					if _, mapped := st.(*store.Memory); !mapped {
						// Read through ranges, a span is fetched and
						// checked whole.
						requireCorrupt(t, err, f.DataFile, what+", ranges")
						continue
					}
					require.NoError(t, err, what)
					require.Len(t, got, len(full), what)
					for i, r := range got {
						require.Equal(t, full[i][oc], r[0], what)
					}
				}
			}
			bad := bytes.Clone(orig)
			bad[start+sp.Head/2] ^= 0x01
			require.NoError(t, st.Put(ctx, f.DataFile, bad))
			tb, err = table.Open(ctx, st, format1Opts)
			require.NoError(t, err)
			for _, name := range format1Schema.Fields() {
				_, err := format1Scan(ctx, tb, []string{name.Name}, mem)
				requireCorrupt(t, err, f.DataFile, "head flipped")
			}
		})
	}
}
