package exec

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// spillDir is one operator stream's temporary directory of spill files
// (Arrow IPC streams). It is made on the first spill and removed, with
// every file in it, by remove: on Close, on an error and on cancellation,
// so a statement never leaves files behind.
type spillDir struct {
	parent string // "" is os.TempDir()
	prefix string
	path   string // "" until the first spill
	files  int
}

// create makes a new spill file in the directory.
func (d *spillDir) create() (*os.File, error) {
	if d.path == "" {
		p, err := os.MkdirTemp(d.parent, d.prefix)
		if err != nil {
			return nil, fmt.Errorf("spill: %w", err)
		}
		d.path = p
	}
	d.files++
	f, err := os.CreateTemp(d.path, "run-*.arrows")
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	return f, nil
}

func (d *spillDir) remove() error {
	if d.path == "" {
		return nil
	}
	err := os.RemoveAll(d.path)
	d.path = ""
	return err
}

// newSpillWriter writes batches to a new file of d as they come.
func newSpillWriter(d *spillDir, mem memory.Allocator, schema *arrow.Schema) (*SpillWriter, error) {
	f, err := d.create()
	if err != nil {
		return nil, err
	}
	return NewSpillWriter(f, schema, mem), nil
}

// runSource yields the batches of one sorted run in order.
type runSource interface {
	next(ctx context.Context) (arrow.RecordBatch, error) // io.EOF at the end; caller releases
	close() error
}

// fileRun reads a run back from its spill file, one batch at a time.
type fileRun struct{ r *SpillReader }

func openFileRun(path string, mem memory.Allocator) (*fileRun, error) {
	r, err := OpenSpillFile(path, mem)
	if err != nil {
		return nil, err
	}
	return &fileRun{r: r}, nil
}

func (r *fileRun) next(ctx context.Context) (arrow.RecordBatch, error) { return r.r.Next(ctx) }
func (r *fileRun) close() error                                        { return r.r.Close() }

// memRun is a sorted batch held in memory, served in slices.
type memRun struct {
	b     arrow.RecordBatch
	off   int64
	chunk int64
}

func (r *memRun) next(context.Context) (arrow.RecordBatch, error) {
	if r.b == nil || r.off >= r.b.NumRows() {
		return nil, io.EOF
	}
	end := min(r.b.NumRows(), r.off+r.chunk)
	s := r.b.NewSlice(r.off, end)
	r.off = end
	return s, nil
}

func (r *memRun) close() error {
	if r.b != nil {
		r.b.Release()
		r.b = nil
	}
	return nil
}

// BatchBytes is the size of b's rows: what buffering a copy of them
// costs. A slice counts its own rows, not its parents' buffers (a scan or
// ValuesExec hands out slices of larger batches; counting those whole
// would refuse memory the sort never copies).
func BatchBytes(b arrow.RecordBatch) int64 {
	var n int64
	for _, c := range b.Columns() {
		n += arrayBytes(c)
	}
	return n
}

// ArrayBytes is the size of a's rows, as BatchBytes counts them (for the
// operators outside exec that reserve by column: exec/window).
func ArrayBytes(a arrow.Array) int64 { return arrayBytes(a) }

func arrayBytes(a arrow.Array) int64 {
	rows := int64(a.Len())
	validity := (rows + 7) / 8
	switch a := a.(type) {
	case *array.String:
		return validity + 4*(rows+1) + span(a.ValueOffsets())
	case *array.Binary:
		return validity + 4*(rows+1) + span(a.ValueOffsets())
	case *array.LargeString:
		return validity + 8*(rows+1) + span(a.ValueOffsets())
	case *array.Boolean:
		return 2 * validity
	}
	if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok && fw.BitWidth() >= 8 {
		return validity + rows*int64(fw.BitWidth()/8)
	}
	return dataBytes(a.Data())
}

// span is the bytes between the first and the last of offsets.
func span[T int32 | int64](offsets []T) int64 {
	if len(offsets) == 0 {
		return 0
	}
	return int64(offsets[len(offsets)-1] - offsets[0])
}

// dataBytes is the size of d's buffers, children and dictionary whole.
func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY { // Dictionary() is a typed nil otherwise
		n += dataBytes(d.Dictionary())
	}
	return n
}

// MemoryPool is the statement's memory budget, nil for no limit.
func (tc *TaskContext) MemoryPool() *memlimit.Pool {
	if tc == nil {
		return nil
	}
	return tc.Pool
}

func (tc *TaskContext) spillDir() string {
	if tc == nil {
		return ""
	}
	return tc.SpillDir
}

// runStream reads a spill file back as a Stream, removing the file when
// closed.
type runStream struct {
	schema *arrow.Schema
	run    *fileRun
	path   string
}

func openRunStream(path string, schema *arrow.Schema, mem memory.Allocator) (*runStream, error) {
	r, err := openFileRun(path, mem)
	if err != nil {
		return nil, err
	}
	return &runStream{schema: schema, run: r, path: path}, nil
}

func (r *runStream) Schema() *arrow.Schema { return r.schema }
func (r *runStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	b, err := r.run.next(ctx)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	return array.NewRecordBatch(r.schema, b.Columns(), b.NumRows()), nil
}
func (r *runStream) Close() error {
	err := r.run.close()
	if rerr := os.Remove(r.path); err == nil {
		err = rerr
	}
	return err
}

// takeBatch is rows idx of b.
func takeBatch(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, idx []int64) (arrow.RecordBatch, error) {
	if len(idx) == int(b.NumRows()) {
		b.Retain()
		return b, nil
	}
	ia := int64Array(mem, idx)
	defer ia.Release()
	cctx := compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, b.NumCols())
	for i := range cols {
		c, err := compute.TakeArray(cctx, b.Column(i), ia)
		if err != nil {
			ReleaseArrays(cols)
			return nil, err
		}
		cols[i] = c
	}
	out := array.NewRecordBatch(b.Schema(), cols, int64(len(idx)))
	ReleaseArrays(cols)
	return out, nil
}
