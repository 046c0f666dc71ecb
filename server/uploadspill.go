package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/exec"
)

// A bound upload past spillAt goes to a file (uploads.go): an Arrow IPC
// stream, params.arrows, in a directory of its own under the engine's
// spill directory (stablerow-upload-*, as sorts make stablerow-sort-*),
// removed with the directory when what holds the parameters is released.

// spillWriter writes an upload's batches to its file as they arrive
// (exec's spill file: an Arrow IPC stream).
type spillWriter struct {
	h   *heldParams
	w   *exec.SpillWriter
	typ arrow.DataType
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
	// What reaches the file is what the memory status reports as spilled
	// (MemoryStatus.UploadSpilled).
	w := exec.NewSpillWriterCounted(f, schema, s.mem, func(n int64) {
		h.spilled += n
		h.spillCount.Add(n)
	})
	return &spillWriter{h: h, w: w, typ: schema.Field(0).Type}, nil
}

func (w *spillWriter) write(b arrow.RecordBatch) error {
	if err := w.w.Write(b); err != nil {
		return status.Errorf(codes.Internal, "parameters: %v", err)
	}
	return nil
}

// abort closes the file; releasing h removes it.
func (w *spillWriter) abort() { w.w.Abort() }

// finish closes the file and returns the parameter that reads it back.
func (w *spillWriter) finish(mem memory.Allocator) (*spilledParam, error) {
	if _, err := w.w.Finish(); err != nil {
		return nil, status.Errorf(codes.Internal, "parameters: %v", err)
	}
	return &spilledParam{path: w.w.Path(), typ: w.typ, rows: w.w.Rows(), mem: mem}, nil
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
	r, err := exec.NewSpillReader(f, p.mem) // closes f on an error
	if err != nil {
		return nil, status.Errorf(codes.Internal, "parameters: %v", err)
	}
	return &spillReader{r: r}, nil
}

// spillReader yields the upload's one column, batch by batch.
type spillReader struct{ r *exec.SpillReader }

func (r *spillReader) Next(ctx context.Context) (arrow.Array, error) {
	b, err := r.r.Next(ctx)
	if err != nil {
		if errors.Is(err, io.EOF) || (ctx.Err() != nil && errors.Is(err, ctx.Err())) {
			return nil, err
		}
		return nil, status.Errorf(codes.Internal, "parameters: %v", err)
	}
	defer b.Release()
	c := b.Column(0)
	c.Retain()
	return c, nil
}

func (r *spillReader) Close() error { return r.r.Close() }

func (p *spilledParam) String() string {
	return fmt.Sprintf("upload of %d %s values spilled to %s", p.rows, p.typ, p.path)
}
