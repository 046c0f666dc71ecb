package table

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// dataFile is an open fragment data file.
type dataFile struct {
	f   *Fragment
	r   store.Reader
	ipc *ipc.FileReader
}

// openData opens f's data file: zero-copy over mapped memory when the
// store can map it, else through range reads. A malformed IPC file can make
// arrow-go panic; that is contained and reported as ErrCorrupt.
func (t *Table) openData(ctx context.Context, f *Fragment, mem memory.Allocator) (d *dataFile, err error) {
	defer func() {
		if p := recover(); p != nil {
			d, err = nil, errorf(ErrCorrupt, "fragment %d: data file %s: %v", f.ID, f.DataFile, p)
		}
	}()
	var r store.Reader = nopReader{}
	var fr *ipc.FileReader
	if mp, ok := t.st.(store.Mapper); ok {
		b, err := mp.Map(ctx, f.DataFile)
		if err != nil {
			return nil, fmt.Errorf("table: fragment %d: map %s: %w", f.ID, f.DataFile, err)
		}
		fr, err = ipc.NewMappedFileReader(b, ipc.WithAllocator(mem))
		if err != nil {
			return nil, errorf(ErrCorrupt, "fragment %d: data file %s: %v", f.ID, f.DataFile, err)
		}
	} else {
		if r, err = t.st.Open(ctx, f.DataFile); err != nil {
			return nil, fmt.Errorf("table: fragment %d: open %s: %w", f.ID, f.DataFile, err)
		}
		fr, err = ipc.NewFileReader(io.NewSectionReader(r, 0, r.Size()), ipc.WithAllocator(mem))
		if err != nil {
			r.Close()
			return nil, errorf(ErrCorrupt, "fragment %d: data file %s: %v", f.ID, f.DataFile, err)
		}
	}
	want := uint64(0)
	if f.PhysicalRows > 0 {
		want = (f.PhysicalRows + f.BatchRows - 1) / f.BatchRows
	}
	if uint64(fr.NumRecords()) != want || fr.Schema().NumFields() != t.m.Schema.NumFields() {
		fr.Close()
		r.Close()
		return nil, errorf(ErrCorrupt, "fragment %d: data file %s has %d batches of %d columns, manifest expects %d of %d",
			f.ID, f.DataFile, fr.NumRecords(), fr.Schema().NumFields(), want, t.m.Schema.NumFields())
	}
	for i, fld := range fr.Schema().Fields() {
		if !arrow.TypeEqual(fld.Type, t.m.Schema.Field(i).Type) {
			fr.Close()
			r.Close()
			return nil, errorf(ErrCorrupt, "fragment %d: column %d is %s, manifest says %s", f.ID, i, fld.Type, t.m.Schema.Field(i).Type)
		}
	}
	return &dataFile{f: f, r: r, ipc: fr}, nil
}

// batch reads IPC batch i and checks its length against the manifest.
func (d *dataFile) batch(i int) (b arrow.RecordBatch, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, errorf(ErrCorrupt, "fragment %d: batch %d: %v", d.f.ID, i, p)
		}
	}()
	b, err = d.ipc.RecordBatchAt(i)
	if err != nil {
		return nil, errorf(ErrCorrupt, "fragment %d: batch %d: %v", d.f.ID, i, err)
	}
	start := uint64(i) * d.f.BatchRows
	want := min(d.f.BatchRows, d.f.PhysicalRows-start)
	if uint64(b.NumRows()) != want {
		b.Release()
		return nil, errorf(ErrCorrupt, "fragment %d: batch %d has %d rows, expected %d", d.f.ID, i, b.NumRows(), want)
	}
	return b, nil
}

func (d *dataFile) Close() error {
	d.ipc.Close()
	return d.r.Close()
}

type nopReader struct{}

func (nopReader) ReadAt([]byte, int64) (int, error) { return 0, io.EOF }
func (nopReader) Size() int64                       { return 0 }
func (nopReader) Close() error                      { return nil }

// column selection resolved against the full schema.
type projection struct {
	names  []string
	src    []int // index into the full schema
	schema *arrow.Schema
	user   bool // some user column is needed (the data file must be read)
}

func (t *Table) project(columns []string) (*projection, error) {
	if columns == nil {
		for _, f := range t.m.Schema.Fields() {
			columns = append(columns, f.Name)
		}
	}
	p := &projection{names: columns}
	fs := make([]arrow.Field, len(columns))
	for i, c := range columns {
		j := t.ColumnIndex(c)
		if j < 0 {
			return nil, errorf(ErrInvalidArgument, "unknown column %q", c)
		}
		p.src = append(p.src, j)
		fs[i] = t.schema.Field(j)
		if j < t.m.Schema.NumFields() {
			p.user = true
		}
	}
	p.schema = arrow.NewSchema(fs, nil)
	return p, nil
}

// systemColumn builds _rowid or _rowaddr for the physical offsets
// [start, start+n) of f.
func systemColumn(mem memory.Allocator, f *Fragment, name string, start, n uint64) arrow.Array {
	return newUint64Array(mem, int(n), func(v []uint64) {
		if name == RowID {
			f.RowIDs.Slice(start, n).AppendTo(v[:0])
			return
		}
		base := uint64(rowid.NewAddress(f.ID, 0)) + start
		for i := range v {
			v[i] = base + uint64(i)
		}
	})
}

// newUint64Array allocates a non-null uint64 array of n values from mem and
// lets fill write them in place (no builder, no per-value calls).
func newUint64Array(mem memory.Allocator, n int, fill func([]uint64)) arrow.Array {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * 8)
	fill(arrow.Uint64Traits.CastFromBytes(buf.Bytes())[:n])
	data := array.NewData(arrow.PrimitiveTypes.Uint64, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	buf.Release()
	a := array.MakeFromData(data)
	data.Release()
	return a
}
