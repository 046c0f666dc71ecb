package table_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/internal/fuzzseed"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// dataOpts cut 40 rows into two fragments of 20 rows, each file three IPC
// batches (8, 8, 4 rows): small enough to flip every byte.
var dataOpts = table.Options{MaxRowsPerFragment: 20, BatchRows: 8}

// dataRows is the input of the data file fixture: the oracle every read is
// compared with (k, name, score, _rowid).
func dataRows() [][]any {
	var rows [][]any
	for i := range 40 {
		// Fixed-width names and a null pattern that repeats per 20-row
		// fragment make both fragment files the same size and layout.
		var name, score any = fmt.Sprintf("row %02d", i), float64(i) / 4
		if i%20%7 == 0 {
			name = nil
		}
		if i%20%5 == 0 {
			score = nil
		}
		rows = append(rows, []any{int64(i), name, score, uint64(i)})
	}
	return rows
}

// dataFixture writes the fixture table into st.
func dataFixture(t testing.TB, st store.Store) *table.Table {
	return dataFixtureIn(t, st, dataOpts)
}

// dataFormats are the data file formats the corruption tests write: the
// default (FormatColumns) and FormatEncoded, each with its options.
var dataFormats = map[string]table.Options{
	"columns": dataOpts,
	"encoded": func() table.Options { o := dataOpts; o.EncodedDataFiles = true; return o }(),
}

// dataFixtureIn writes the fixture table into st with opts.
func dataFixtureIn(t testing.TB, st store.Store, opts table.Options) *table.Table {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb, err := table.Create(ctx, st, userSchema, opts)
	require.NoError(t, err)
	// One input batch per fragment: arrow-go writes a slice at a nonzero
	// offset with a different layout, and the swap test wants two files
	// that differ only in values and content id.
	var bs []arrow.RecordBatch
	for lo := 0; lo < 40; lo += 20 {
		var in [][]any
		for _, r := range dataRows()[lo : lo+20] {
			in = append(in, r[:3])
		}
		b, err := exectest.Batch(mem, userSchema, in)
		require.NoError(t, err)
		defer b.Release()
		bs = append(bs, b)
	}
	tb, err = tb.AppendBatches(ctx, bs, mem)
	require.NoError(t, err)
	require.Len(t, tb.Fragments(), 2)
	return tb
}

var dataCols = []string{"k", "name", "score", "_rowid"}

// scanRows reads every row of the given fragments (nil: all).
func scanRows(ctx context.Context, tb *table.Table, frags []uint32, mem memory.Allocator) ([][]any, error) {
	s, err := tb.Scan(ctx, table.ScanOptions{Columns: dataCols, Fragments: frags, Mem: mem})
	if err != nil {
		return nil, err
	}
	defer s.Release()
	var out [][]any
	for s.Next() {
		rows, err := exectest.Rows(s.RecordBatch())
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, s.Err()
}

// scanColumn reads one column of fragment frag.
func scanColumn(ctx context.Context, tb *table.Table, col string, frag uint32, mem memory.Allocator) ([]any, error) {
	s, err := tb.Scan(ctx, table.ScanOptions{Columns: []string{col}, Fragments: []uint32{frag}, Mem: mem})
	if err != nil {
		return nil, err
	}
	defer s.Release()
	var out []any
	for s.Next() {
		rows, err := exectest.Rows(s.RecordBatch())
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, r[0])
		}
	}
	return out, s.Err()
}

// takeRows reads the rows at the given addresses.
func takeRows(ctx context.Context, tb *table.Table, addrs []uint64, mem memory.Allocator) ([][]any, error) {
	b, err := tb.Take(ctx, addrs, nil, dataCols, mem)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	return exectest.Rows(b)
}

// requireCorrupt checks err is the table's corruption error (and so the
// shared errkind.Corrupt) and names the data file.
func requireCorrupt(t testing.TB, err error, file, what string) {
	t.Helper()
	require.ErrorIs(t, err, table.ErrCorrupt, what)
	require.ErrorIs(t, err, errkind.Corrupt, what)
	require.Contains(t, err.Error(), file, what)
}

// rangeStore hides the memory store's Map, so data files are read through
// store.Reader range reads (the path of stores that cannot map).
type rangeStore struct{ store.Store }

// TestDataFileEveryByteFlipped flips each bit 0 and bit 7 of every byte of
// a data file in turn (under -short one of them, alternating), through a mapping store and a range-reading one. A
// full scan must be ErrCorrupt naming the file (every byte is under a
// checksum); a point take of one row per batch must be either the oracle's
// row or ErrCorrupt. Before the data files had checksums, flips in a batch
// body came back as wrong values with no error.
func TestDataFileEveryByteFlipped(t *testing.T) {
	for format, opts := range dataFormats {
		t.Run(format, func(t *testing.T) { everyByteFlipped(t, opts) })
	}
}

func everyByteFlipped(t *testing.T, opts table.Options) {
	ctx := context.Background()
	for name, st := range map[string]store.Store{"mapped": store.NewMemory(), "ranges": rangeStore{store.NewMemory()}} {
		t.Run(name, func(t *testing.T) {
			mem := exectest.Mem(t)
			tb := dataFixtureIn(t, st, opts)
			require.Equal(t, opts.EncodedDataFiles, tb.Fragments()[0].File.Format == table.FormatEncoded)
			want := dataRows()
			f := tb.Fragments()[0]
			orig, err := st.Get(ctx, f.DataFile)
			require.NoError(t, err)
			got, err := scanRows(ctx, tb, nil, mem)
			require.NoError(t, err)
			require.Equal(t, want, got)
			for i := range orig {
				for bi, bit := range []byte{0x01, 0x80} {
					if testing.Short() && bi != i%2 {
						// -short (make test, under the race
						// detector) flips one of the two bits of
						// each byte, in turn; make test-long flips
						// both.
						continue
					}
					what := fmt.Sprintf("byte %d of %d bit %#x", i, len(orig), bit)
					c := bytes.Clone(orig)
					c[i] ^= bit
					require.NoError(t, st.Put(ctx, f.DataFile, c))
					tb, err := table.Open(ctx, st, dataOpts)
					require.NoError(t, err)
					_, err = scanRows(ctx, tb, nil, mem)
					requireCorrupt(t, err, f.DataFile, what)
					for _, off := range []uint32{3, 12, 19} { // one row in each batch
						rows, err := takeRows(ctx, tb, []uint64{uint64(rowid.NewAddress(f.ID, off))}, mem)
						if err != nil {
							requireCorrupt(t, err, f.DataFile, what)
							continue
						}
						require.Equal(t, want[off:off+1], rows, what)
					}
				}
			}
			require.NoError(t, st.Put(ctx, f.DataFile, orig))
		})
	}
}

// TestDataFileSwapped copies each fragment's file over the other's (same
// row count, same schema, same batch sizes: the files differ only in
// values and content id). Before, every query answered from the other
// fragment's rows; now both scans and takes are ErrCorrupt naming the
// file that is not what the manifest describes.
func TestDataFileSwapped(t *testing.T) {
	ctx := context.Background()
	for name, st := range map[string]store.Store{"mapped": store.NewMemory(), "ranges": rangeStore{store.NewMemory()}} {
		t.Run(name, func(t *testing.T) {
			mem := exectest.Mem(t)
			tb := dataFixture(t, st)
			f0, f1 := tb.Fragments()[0], tb.Fragments()[1]
			b0, err := st.Get(ctx, f0.DataFile)
			require.NoError(t, err)
			b1, err := st.Get(ctx, f1.DataFile)
			require.NoError(t, err)
			require.Equal(t, len(b0), len(b1), "the fixture's files should be the same size")
			require.NoError(t, st.Put(ctx, f0.DataFile, b1))
			require.NoError(t, st.Put(ctx, f1.DataFile, b0))
			tb, err = table.Open(ctx, st, dataOpts)
			require.NoError(t, err)
			_, err = scanRows(ctx, tb, nil, mem)
			requireCorrupt(t, err, f0.DataFile, "scan")
			_, err = scanRows(ctx, tb, []uint32{f1.ID}, mem)
			requireCorrupt(t, err, f1.DataFile, "scan of fragment 1")
			_, err = takeRows(ctx, tb, []uint64{uint64(rowid.NewAddress(f1.ID, 5))}, mem)
			requireCorrupt(t, err, f1.DataFile, "take")
		})
	}
}

// TestDataFileTruncated cuts the file at every length and also extends it
// by one byte: all ErrCorrupt, never a partial answer.
func TestDataFileTruncated(t *testing.T) {
	for format, opts := range dataFormats {
		t.Run(format, func(t *testing.T) { truncated(t, opts) })
	}
}

func truncated(t *testing.T, opts table.Options) {
	ctx := context.Background()
	for name, st := range map[string]store.Store{"mapped": store.NewMemory(), "ranges": rangeStore{store.NewMemory()}} {
		t.Run(name, func(t *testing.T) {
			mem := exectest.Mem(t)
			tb := dataFixtureIn(t, st, opts)
			f := tb.Fragments()[1]
			orig, err := st.Get(ctx, f.DataFile)
			require.NoError(t, err)
			for n := 0; n <= len(orig); n++ {
				c := bytes.Clone(orig[:n])
				if n == len(orig) {
					c = append(c, 0)
				}
				require.NoError(t, st.Put(ctx, f.DataFile, c))
				tb, err := table.Open(ctx, st, dataOpts)
				require.NoError(t, err)
				_, err = scanRows(ctx, tb, []uint32{f.ID}, mem)
				requireCorrupt(t, err, f.DataFile, fmt.Sprintf("%d of %d bytes", len(c), len(orig)))
				_, err = takeRows(ctx, tb, []uint64{uint64(rowid.NewAddress(f.ID, 0))}, mem)
				requireCorrupt(t, err, f.DataFile, fmt.Sprintf("take, %d of %d bytes", len(c), len(orig)))
			}
		})
	}
}

// TestDataFileCorruptOnDisk damages a file of a local (mmap) store in
// place, before this process has mapped it, as bit rot would.
func TestDataFileCorruptOnDisk(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	dir := t.TempDir()
	st, err := store.NewLocal(dir)
	require.NoError(t, err)
	tb := dataFixture(t, st)
	f := tb.Fragments()[0]
	p := filepath.Join(dir, filepath.FromSlash(f.DataFile))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	b[len(b)/2] ^= 0x10
	require.NoError(t, os.WriteFile(p, b, 0o644))
	tb, err = table.Open(ctx, st, dataOpts)
	require.NoError(t, err)
	_, err = scanRows(ctx, tb, nil, mem)
	requireCorrupt(t, err, f.DataFile, "scan")
}

// TestWarmTakeSeesNewBytes: verification marks are tied to
// the bytes they were taken on; when the store hands out other bytes for
// the path, they are verified again rather than trusted.
func TestWarmTakeSeesNewBytes(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	st := store.NewMemory()
	tb := dataFixture(t, st)
	f := tb.Fragments()[0]
	addr := []uint64{uint64(rowid.NewAddress(f.ID, 3))}
	rows, err := takeRows(ctx, tb, addr, mem)
	require.NoError(t, err)
	require.Equal(t, dataRows()[3:4], rows)
	orig, err := st.Get(ctx, f.DataFile)
	require.NoError(t, err)
	c := bytes.Clone(orig)
	s0 := f.File.Spans[0]
	c[s0.End-16] ^= 1 // inside batch 0's body
	require.NoError(t, st.Put(ctx, f.DataFile, c))
	_, err = takeRows(ctx, tb, addr, mem)
	requireCorrupt(t, err, f.DataFile, "same snapshot, new bytes")
}

// TestManifestVersion1Refused: manifests from before data file checksums
// are refused with a message that says what to do, not read unverified.
func TestManifestVersion1Refused(t *testing.T) {
	ms := sampleManifests(t)
	b := bytes.Clone(ms[len(ms)-1])
	binary.LittleEndian.PutUint16(b[4:], 1)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)))
	_, err := table.UnmarshalManifest(b)
	require.ErrorIs(t, err, table.ErrCorrupt)
	require.Contains(t, err.Error(), "recreate the table")
}

// fragmentFileFixture is the fuzz target's table: the fixture in a memory
// store, the oracle rows of fragment 0 and its file's bytes.
type fragmentFileFixture struct {
	st   store.Store
	f    *table.Fragment
	want [][]any
	file []byte
}

func newFragmentFileFixture(t testing.TB) *fragmentFileFixture {
	st := store.NewMemory()
	tb := dataFixture(t, st)
	f := tb.Fragments()[0]
	b, err := st.Get(context.Background(), f.DataFile)
	require.NoError(t, err)
	return &fragmentFileFixture{st: st, f: f, want: dataRows()[:20], file: b}
}

// fragmentFileSeeds are the fixture's file and damaged variants of it.
func fragmentFileSeeds(fx *fragmentFileFixture) [][]byte {
	flip := func(i int) []byte { c := bytes.Clone(fx.file); c[i] ^= 0x04; return c }
	s0 := int(fx.f.File.Spans[0].End)
	seeds := [][]byte{fx.file, fx.file[:len(fx.file)/2], flip(s0 - 8), flip(len(fx.file) - 12), flip(3), {}}
	if sp := fx.f.File.Spans[0]; len(sp.Cols) == 3 {
		// Inside column score's part of batch 0: a scan of name reads on.
		seeds = append(seeds, flip(int(sp.Head+sp.Cols[0].Len+sp.Cols[1].Len)+2))
	}
	return seeds
}

// FuzzFragmentFile: any bytes as fragment 0's data file. Opening and
// reading every batch (scan and take) must give exactly the oracle's rows
// or ErrCorrupt: never a panic, never other rows.
func FuzzFragmentFile(f *testing.F) {
	fx := newFragmentFileFixture(f)
	for _, s := range fragmentFileSeeds(fx) {
		f.Add(s)
	}
	addrs := make([]uint64, 20)
	for i := range addrs {
		addrs[i] = uint64(rowid.NewAddress(fx.f.ID, uint32(19-i)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx := context.Background()
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		if err := fx.st.Put(ctx, fx.f.DataFile, b); err != nil {
			t.Fatal(err)
		}
		tb, err := table.Open(ctx, fx.st, dataOpts)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := scanRows(ctx, tb, []uint32{fx.f.ID}, mem)
		if err != nil {
			if !errors.Is(err, table.ErrCorrupt) || !strings.Contains(err.Error(), fx.f.DataFile) {
				t.Fatalf("scan: %v", err)
			}
		} else {
			require.Equal(t, fx.want, rows)
		}
		// One column: FormatColumns checks only its part (and the head),
		// so this reads through bytes the full scan refused; it must
		// still be the oracle's values or ErrCorrupt.
		tb, err = table.Open(ctx, fx.st, dataOpts)
		if err != nil {
			t.Fatal(err)
		}
		names, err := scanColumn(ctx, tb, "name", fx.f.ID, mem)
		if err != nil {
			if !errors.Is(err, table.ErrCorrupt) || !strings.Contains(err.Error(), fx.f.DataFile) {
				t.Fatalf("scan of one column: %v", err)
			}
		} else {
			require.Len(t, names, len(fx.want))
			for i, r := range fx.want {
				require.Equal(t, r[1], names[i])
			}
		}
		rows, err = takeRows(ctx, tb, addrs, mem)
		if err != nil {
			if !errors.Is(err, table.ErrCorrupt) || !strings.Contains(err.Error(), fx.f.DataFile) {
				t.Fatalf("take: %v", err)
			}
			return
		}
		for i, r := range rows {
			require.Equal(t, fx.want[19-i], r)
		}
	})
}

func TestFragmentFileCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzFragmentFile", fragmentFileSeeds(newFragmentFileFixture(t)))
}
