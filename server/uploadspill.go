package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/exec"
)

// A bound upload past spillAt goes to a file (uploads.go): an Arrow IPC
// stream, params.arrows, in a directory of its own under the engine's
// spill directory (stablerow-upload-*, as sorts make stablerow-sort-*),
// removed with the directory when what holds the parameters is released.

// spillWriter writes an upload's batches to its file as they arrive.
type spillWriter struct {
	h    *heldParams
	f    *os.File
	bw   *bufio.Writer
	w    *ipc.Writer
	typ  arrow.DataType
	rows int64
}

// startSpill makes the upload's spill directory (h.dir, removed when h is
// released) and file.
func (s *Server) startSpill(h *heldParams, schema *arrow.Schema) (*spillWriter, error) {
	dir, err := os.MkdirTemp(s.db.SpillDir(), "stablerow-upload-")
	if err != nil {
		return nil, status.Errorf(codes.Internal, "parameters: spill: %v", err)
	}
	h.dir = dir
	f, err := os.Create(filepath.Join(dir, "params.arrows"))
	if err != nil {
		return nil, status.Errorf(codes.Internal, "parameters: spill: %v", err)
	}
	bw := bufio.NewWriterSize(&spillCounter{f: f, h: h}, 1<<20)
	return &spillWriter{h: h, f: f, bw: bw, typ: schema.Field(0).Type,
		w: ipc.NewWriter(bw, ipc.WithSchema(schema), ipc.WithAllocator(s.mem))}, nil
}

// spillCounter counts what reaches the spill file: the bytes on disk the
// memory status reports (MemoryStatus.UploadSpilled).
type spillCounter struct {
	f *os.File
	h *heldParams
}

func (c *spillCounter) Write(p []byte) (int, error) {
	n, err := c.f.Write(p)
	c.h.spilled += int64(n)
	c.h.spillCount.Add(int64(n))
	return n, err
}

func (w *spillWriter) write(b arrow.RecordBatch) error {
	if err := w.w.Write(b); err != nil {
		return status.Errorf(codes.Internal, "parameters: spill: %v", err)
	}
	w.rows += b.NumRows()
	return nil
}

// abort closes the file; releasing h removes it.
func (w *spillWriter) abort() {
	_ = w.w.Close()
	_ = w.f.Close()
}

// finish closes the file and returns the parameter that reads it back.
func (w *spillWriter) finish(mem memory.Allocator) (*spilledParam, error) {
	err := w.w.Close()
	if ferr := w.bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, status.Errorf(codes.Internal, "parameters: spill: %v", err)
	}
	return &spilledParam{path: w.f.Name(), typ: w.typ, rows: w.rows, mem: mem}, nil
}

// spilledParam is a bound upload in its spill file: an exec.ListSource
// each run of the statement reads from the start, batch by batch.
type spilledParam struct {
	path string
	typ  arrow.DataType
	rows int64
	mem  memory.Allocator
}

var _ exec.ListSource = (*spilledParam)(nil)

func (p *spilledParam) ElemType() arrow.DataType { return p.typ }

// Open implements exec.ListSource. A statement rebound or closed while a
// run of it reads the file keeps reading (the open file outlives its
// name); one that starts after finds it gone.
func (p *spilledParam) Open(context.Context) (exec.ListReader, error) {
	f, err := os.Open(p.path)
	if err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "parameters: the spilled upload is gone (statement rebound or closed): %v", err)
	}
	r, err := ipc.NewReader(bufio.NewReaderSize(f, 1<<20), ipc.WithAllocator(p.mem))
	if err != nil {
		f.Close()
		return nil, status.Errorf(codes.Internal, "parameters: read spill: %v", err)
	}
	return &spillReader{f: f, r: r}, nil
}

type spillReader struct {
	f *os.File
	r *ipc.Reader
}

func (r *spillReader) Next(ctx context.Context) (arrow.Array, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.r.Next() {
		c := r.r.RecordBatch().Column(0)
		c.Retain()
		return c, nil
	}
	if err := r.r.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, status.Errorf(codes.Internal, "parameters: read spill: %v", err)
	}
	return nil, io.EOF
}

func (r *spillReader) Close() error {
	r.r.Release()
	return r.f.Close()
}

func (p *spilledParam) String() string {
	return fmt.Sprintf("upload of %d %s values spilled to %s", p.rows, p.typ, p.path)
}
