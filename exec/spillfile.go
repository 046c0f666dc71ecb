package exec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A spill file is an Arrow IPC stream of one schema's batches, written and
// read through 1 MiB buffers. This file is its one writer and reader: the
// sort's runs and the aggregation's overflow (spill.go), and the server's
// spilled uploads (server/uploadspill.go). A spill file lives only as long
// as the statement or upload that wrote it, in a directory of its own that
// is removed with everything in it, and is read back by the process that
// wrote it; so it carries nothing past the IPC stream's own framing.
//
//	create ──Write*──► Finish ──► (path, size) ──NewSpillReader──► Next* ──► io.EOF
//	   └──────────────► Abort (the directory's removal deletes the file)

// SpillWriter writes batches to one spill file as they come.
type SpillWriter struct {
	f    *os.File
	bw   *bufio.Writer
	w    *ipc.Writer
	rows int64
}

// NewSpillWriter writes batches of schema to f, which Finish or Abort
// closes.
func NewSpillWriter(f *os.File, schema *arrow.Schema, mem memory.Allocator) *SpillWriter {
	return NewSpillWriterCounted(f, schema, mem, nil)
}

// NewSpillWriterCounted is NewSpillWriter that calls wrote (if not nil)
// with the bytes of each write that reaches f: what a status reports as
// on disk, as it grows.
func NewSpillWriterCounted(f *os.File, schema *arrow.Schema, mem memory.Allocator, wrote func(n int64)) *SpillWriter {
	var dst io.Writer = f
	if wrote != nil {
		dst = countingWriter{w: f, wrote: wrote}
	}
	return newSpillWriterBuffered(dst, f, schema, mem, 1<<20)
}

// newSpillWriterBuffered is a writer through a buffer of size bytes: the
// sort sizes it to its runs' batches, so that what it reserves for a
// spill is what the spill holds (sort_runs.go).
func newSpillWriterBuffered(dst io.Writer, f *os.File, schema *arrow.Schema, mem memory.Allocator, size int) *SpillWriter {
	bw := bufio.NewWriterSize(dst, size)
	return &SpillWriter{f: f, bw: bw, w: ipc.NewWriter(bw, ipc.WithSchema(schema), ipc.WithAllocator(mem))}
}

// countingWriter reports the bytes each write puts through.
type countingWriter struct {
	w     io.Writer
	wrote func(n int64)
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.wrote(int64(n))
	return n, err
}

// CreateSpillFile creates the spill file path and a writer to it.
func CreateSpillFile(path string, schema *arrow.Schema, mem memory.Allocator) (*SpillWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	return NewSpillWriter(f, schema, mem), nil
}

// Path is the file's name.
func (w *SpillWriter) Path() string { return w.f.Name() }

// Rows is how many rows were written.
func (w *SpillWriter) Rows() int64 { return w.rows }

// Write appends b (the caller keeps it).
func (w *SpillWriter) Write(b arrow.RecordBatch) error {
	if err := w.w.Write(b); err != nil {
		return fmt.Errorf("spill: write %s: %w", w.f.Name(), err)
	}
	w.rows += b.NumRows()
	return nil
}

// Finish ends the stream, closes the file and returns its size (0 when the
// file could not be asked its size).
func (w *SpillWriter) Finish() (int64, error) {
	err := w.w.Close()
	if ferr := w.bw.Flush(); err == nil {
		err = ferr
	}
	var size int64
	if st, serr := w.f.Stat(); serr == nil {
		size = st.Size()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("spill: write %s: %w", w.f.Name(), err)
	}
	return size, nil
}

// Abort closes the file without finishing it; whoever made its directory
// removes it.
func (w *SpillWriter) Abort() {
	_ = w.w.Close()
	_ = w.f.Close()
}

// SpillReader reads a spill file back, one batch at a time.
type SpillReader struct {
	f *os.File
	r *ipc.Reader
}

// NewSpillReader reads the spill file open in f, which it closes on Close
// (and on an error here).
func NewSpillReader(f *os.File, mem memory.Allocator) (*SpillReader, error) {
	return newSpillReaderBuffered(f, mem, 1<<20)
}

// newSpillReaderBuffered reads through a buffer of size bytes: a sort's
// merge holds one per open run, and reserves it (sort_runs.go).
func newSpillReaderBuffered(f *os.File, mem memory.Allocator, size int) (*SpillReader, error) {
	r, err := ipc.NewReader(bufio.NewReaderSize(f, size), ipc.WithAllocator(mem))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("spill: read %s: %w", f.Name(), err)
	}
	return &SpillReader{f: f, r: r}, nil
}

// OpenSpillFile opens the spill file path for reading.
func OpenSpillFile(path string, mem memory.Allocator) (*SpillReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	return NewSpillReader(f, mem)
}

// Next is the next batch, which the caller releases; io.EOF at the end,
// ctx's error (unwrapped) once it is done.
func (r *SpillReader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.r.Next() {
		b := r.r.RecordBatch()
		b.Retain()
		return b, nil
	}
	if err := r.r.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("spill: read %s: %w", r.f.Name(), err)
	}
	return nil, io.EOF
}

// Close releases the reader and closes the file.
func (r *SpillReader) Close() error {
	r.r.Release()
	return r.f.Close()
}
