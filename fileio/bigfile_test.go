package fileio

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// peakAllocator records the most bytes outstanding at once.
type peakAllocator struct {
	*memory.CheckedAllocator
	mu   sync.Mutex
	peak int
}

func (a *peakAllocator) note() {
	a.mu.Lock()
	if n := a.CurrentAlloc(); n > a.peak {
		a.peak = n
	}
	a.mu.Unlock()
}
func (a *peakAllocator) Allocate(n int) []byte {
	b := a.CheckedAllocator.Allocate(n)
	a.note()
	return b
}
func (a *peakAllocator) Reallocate(n int, b []byte) []byte {
	b = a.CheckedAllocator.Reallocate(n, b)
	a.note()
	return b
}

// TestBigFilesStreamInBoundedMemory writes and reads back 1M rows (about
// 30 MB of values) as Parquet and CSV and checks that the peak of
// allocator memory stays far below the file's size: readers and writers
// hold a batch (plus pages / a row group's encoded columns), not the file.
func TestBigFilesStreamInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("1M rows")
	}
	const rows, batch = 1 << 20, 4096
	dir := t.TempDir()
	for _, format := range []Format{Parquet, CSV} {
		mem := &peakAllocator{CheckedAllocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
		path := filepath.Join(dir, "big."+string(format))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		var w interface {
			Write(arrow.RecordBatch) error
			Close() error
		}
		if format == Parquet {
			w, err = NewParquetWriter(f, testSchema, mem)
		} else {
			w, err = NewCSVWriter(f, testSchema, Options{})
		}
		if err != nil {
			t.Fatal(err)
		}
		for start := 0; start < rows; start += batch {
			b := bigBatch(mem, start, batch)
			if err := w.Write(b); err != nil {
				t.Fatal(err)
			}
			b.Release()
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		st, _ := os.Stat(path)
		writePeak := mem.peak
		mem.peak = 0

		in, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var r interface {
			Next(context.Context) (arrow.RecordBatch, error)
			Close() error
		}
		if format == Parquet {
			r, err = NewParquetReader(context.Background(), in, mem, batch)
		} else {
			r, err = NewCSVReader(in, testSchema, Options{}, mem, batch)
		}
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			b, err := r.Next(context.Background())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			k := b.Column(0).(*array.Int64)
			s := b.Column(2).(*array.String)
			if k.Value(0) != int64(n) || s.Value(0) != "value "+strconv.Itoa(n) {
				t.Fatalf("row %d: k=%d s=%q", n, k.Value(0), s.Value(0))
			}
			n += int(b.NumRows())
			b.Release()
		}
		r.Close()
		if n != rows {
			t.Fatalf("%s: read %d rows, wrote %d", format, n, rows)
		}
		t.Logf("%s: file %d bytes; peak allocator bytes: write %d, read %d", format, st.Size(), writePeak, mem.peak)
		// The bound: a row group of 128K rows encoded (Parquet write) or a
		// few batches; the file is 20-30 MB.
		if mem.peak > 8<<20 || writePeak > 16<<20 {
			t.Errorf("%s: peak write %d / read %d bytes for a %d-byte file: not streaming", format, writePeak, mem.peak, st.Size())
		}
		mem.AssertSize(t, 0)
	}
}

func bigBatch(mem memory.Allocator, start, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, testSchema)
	defer b.Release()
	for i := start; i < start+n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Float64Builder).Append(float64(i) / 3)
		b.Field(2).(*array.StringBuilder).Append("value " + strconv.Itoa(i))
		if i%5 == 0 {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.BooleanBuilder).Append(i%2 == 0)
		}
	}
	return b.NewRecordBatch()
}
