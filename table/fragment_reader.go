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

func (t *Table) openData(ctx context.Context, f *Fragment, mem memory.Allocator) (*dataFile, error) {
	r, err := t.st.Open(ctx, f.DataFile)
	if err != nil {
		return nil, fmt.Errorf("table: fragment %d: open %s: %w", f.ID, f.DataFile, err)
	}
	fr, err := ipc.NewFileReader(io.NewSectionReader(r, 0, r.Size()), ipc.WithAllocator(mem))
	if err != nil {
		r.Close()
		return nil, errorf(ErrCorrupt, "fragment %d: data file %s: %v", f.ID, f.DataFile, err)
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
func (d *dataFile) batch(i int) (arrow.RecordBatch, error) {
	b, err := d.ipc.RecordBatchAt(i)
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
	b := array.NewUint64Builder(mem)
	defer b.Release()
	b.Reserve(int(n))
	if name == RowID {
		vals := f.RowIDs.Slice(start, n).AppendTo(make([]uint64, 0, n))
		b.AppendValues(vals, nil)
	} else {
		base := uint64(rowid.NewAddress(f.ID, 0))
		for i := uint64(0); i < n; i++ {
			b.UnsafeAppend(base + start + i)
		}
	}
	return b.NewArray()
}
