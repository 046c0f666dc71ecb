package table

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// dataFile is an open fragment data file. Every byte decoded into
// something handed out has been checked against the fragment's
// DataFileInfo first:
//
//	openData: size == manifest size --> tail crc (footer) --> arrow-go parses footer, schema checked
//	          (all skipped when the mapping's marks say it was done for this description)
//	                                                             |
//	batch(i, cols): crc of span i (FormatSpans) or of its head and of the
//	                parts of cols (FormatColumns), each skipped when marked
//	  FormatColumns, mapped: batchSpan decodes cols only, each buffer
//	                         inside its column's part --> cols handed out
//	  otherwise:             arrow-go decodes batch i
//	                         --> cols' buffers inside their parts? --> cols handed out
//
// Mapped files are read zero-copy, and a reader drops (store.Mapping.Drop)
// the pages before each batch it decodes and the whole file when it is
// closed, so a scan keeps about one batch of the file resident however
// large the table; arrays still referenced read their pages back on access.
// The marks in chk (kept with the
// store.Mapping, so shared by every snapshot and query reading the same
// bytes) let warm reads skip hashing and, for a FormatColumns file,
// arrow-go's file reader altogether. Files read through store.Reader go
// through vr, which serves arrow-go only the bytes just verified. On an
// object store the reader is opened from the manifest's size and content
// id (store.KnownOpener: no HEAD), and a take fetches the spans of the
// batches it will decode ahead, a bounded window at a time, in one
// ReadRanges (merged, in parallel):
//
//	take: batches b1 < b2 < ... --window(prefetchBatches, prefetchBytes)--> ReadRanges --> pre
//	batch(i): pre[i] (or one read) --> span crc --> decode; pre[i] dropped
type dataFile struct {
	f       *Fragment
	data    []byte         // the mapped file; nil when read through r
	m       *store.Mapping // of data
	dropped int            // data[:dropped] has been dropped (store.Mapping.Drop)
	chk     *fileCheck     // verification marks of the mapped file
	r       store.Reader   // nil when mapped
	vr      *verifiedReader
	ipc     *ipc.FileReader  // nil for a mapped FormatColumns file (batchSpan decodes it)
	pre     map[int][]byte   // spans fetched ahead, not yet verified; by batch
	ctx     context.Context  // of openData: batch's reads honour it
	mem     memory.Allocator // FormatEncoded: what decoded columns are allocated from
	utypes  []arrow.DataType // the user columns' types
	ftypes  []arrow.DataType // the file's IPC columns' types (fileTypes)
}

// The window of a take's read-ahead on an object store: memory stays
// bounded by it whatever the number of rows taken.
const (
	prefetchBatches = 64
	prefetchBytes   = 16 << 20
)

// openData opens f's data file: zero-copy over mapped memory when the
// store can map it, else through range reads. Any mismatch with the
// manifest (size, checksum, content id, batch count, column types) is
// ErrCorrupt naming the file.
func (t *Table) openData(ctx context.Context, f *Fragment, mem memory.Allocator) (d *dataFile, err error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	d = &dataFile{f: f, ctx: ctx, mem: mem, ftypes: fileTypes(&f.File, t.m.Schema)}
	for _, fl := range t.m.Schema.Fields() {
		d.utypes = append(d.utypes, fl.Type)
	}

	defer func() {
		// Verification runs before arrow-go sees a byte, so a panic here
		// would be a decoder bug on verified input; it is still reported
		// rather than allowed to take the process down.
		if p := recover(); p != nil {
			err = errorf(ErrCorrupt, "fragment %d: data file %s: %v", f.ID, f.DataFile, p)
		}
		if err != nil {
			d.Close()
			d = nil
		}
	}()
	if mp, ok := t.st.(store.Mapper); ok {
		m, err := mp.Map(ctx, f.DataFile)
		if err != nil {
			return d, dataFileErr(f, "map", err)
		}
		d.m, d.data = m, m.Data
		d.chk = checksOf(m, &f.File, t.m.Schema)
		if d.chk.tail.Load() && f.File.columnar() {
			// Tail and schema checked against this description before;
			// batches decode without arrow-go's file reader.
			return d, nil
		}
		if !d.chk.tail.Load() {
			if err := checkTail(f, d.data); err != nil {
				return d, err
			}
		}
		if d.ipc, err = ipc.NewMappedFileReader(d.data, ipc.WithAllocator(mem)); err != nil {
			return d, errorf(ErrCorrupt, "fragment %d: data file %s: %w", f.ID, f.DataFile, err)
		}
		if err := d.checkSchema(t.m.Schema); err != nil {
			return d, err
		}
		d.chk.tail.Store(true)
		if f.File.columnar() {
			d.ipc.Close()
			d.ipc = nil
		}
		return d, nil
	} else {
		if ko, ok := t.st.(store.KnownOpener); ok {
			d.r, err = ko.OpenKnown(ctx, f.DataFile, int64(f.File.Size), f.File.IDString())
		} else {
			d.r, err = t.st.Open(ctx, f.DataFile)
		}
		if err != nil {
			return d, dataFileErr(f, "open", err)
		}
		size := d.r.Size()
		if uint64(size) != f.File.Size {
			return d, errorf(ErrCorrupt, "fragment %d: data file %s is %d bytes, the manifest says %d", f.ID, f.DataFile, size, f.File.Size)
		}
		ts := int64(f.File.tailStart())
		tail, err := d.read(ctx, ts, size-ts)
		if err != nil {
			return d, err
		}
		if err := checkTailCRC(f, tail); err != nil {
			return d, err
		}
		d.vr = &verifiedReader{size: size, tail: window{off: ts, data: tail}}
		if d.ipc, err = ipc.NewFileReader(d.vr, ipc.WithAllocator(mem)); err != nil {
			return d, errorf(ErrCorrupt, "fragment %d: data file %s: %w", f.ID, f.DataFile, err)
		}
	}
	if err := d.checkSchema(t.m.Schema); err != nil {
		return d, err
	}
	if f.File.Format == FormatEncoded {
		// batch decodes each span it reads with batchSpan.
		d.ipc.Close()
		d.ipc = nil
	}
	return d, nil
}

// checkSchema compares what the verified footer says with the manifest: a
// checksum match makes a mismatch here unlikely, but it is what names a
// file written for another fragment if two ever collide.
func (d *dataFile) checkSchema(us *arrow.Schema) error {
	f, fr := d.f, d.ipc
	if id, _ := fr.Schema().Metadata().GetValue(metadataFileID); id != f.File.IDString() {
		return errorf(ErrCorrupt, "fragment %d: data file %s has content id %q, the manifest says %q", f.ID, f.DataFile, id, f.File.IDString())
	}
	if v, ok := fr.Schema().Metadata().GetValue(metadataFormat); v != strconv.Itoa(int(f.File.Format)) && (ok || f.File.Format != FormatSpans) {
		return errorf(ErrCorrupt, "fragment %d: data file %s has format %q, the manifest says %d", f.ID, f.DataFile, v, f.File.Format)
	}
	if want := len(f.File.Spans); fr.NumRecords() != want || fr.Schema().NumFields() != us.NumFields() {
		return errorf(ErrCorrupt, "fragment %d: data file %s has %d batches of %d columns, manifest expects %d of %d",
			f.ID, f.DataFile, fr.NumRecords(), fr.Schema().NumFields(), want, us.NumFields())
	}
	for i, fld := range fr.Schema().Fields() {
		if !arrow.TypeEqual(fld.Type, d.ftypes[i]) {
			return errorf(ErrCorrupt, "fragment %d: data file %s: column %d is %s, manifest says %s", f.ID, f.DataFile, i, fld.Type, d.ftypes[i])
		}
	}
	return nil
}

// batch verifies the parts of IPC batch i that reading the user columns
// cols needs (FormatSpans: the whole span; FormatColumns: the head and
// those columns' parts, or every part when the span was read through a
// store.Reader, which fetches it whole), decodes the batch and returns
// those columns, in cols order, in dst's storage (scratch a caller reuses
// per batch), with the batch's row count, checked against the manifest.
// The caller releases the arrays. Columns not in cols are never handed
// out: their bytes may not have been verified.
func (d *dataFile) batch(i int, cols []int, dst []arrow.Array) (out []arrow.Array, rows int64, err error) {
	return d.batchRows(i, cols, nil, dst)
}

// batchRows is batch of only the rows at pos (offsets in the batch, any
// order, repeats allowed) when the file is FormatEncoded and pos is not
// nil: each column holds len(pos) values, decoded at those positions only
// (encoding.DecodeRows), and rows is the batch's row count still. Other
// formats (and a nil pos) return the whole batch: their columns are read
// in place, and the caller picks the rows.
func (d *dataFile) batchRows(i int, cols []int, pos []int32, dst []arrow.Array) (out []arrow.Array, rows int64, err error) {
	f := d.f
	if i < 0 || i >= len(f.File.Spans) {
		return nil, 0, errorf(ErrInvalidArgument, "fragment %d: batch %d of %d", f.ID, i, len(f.File.Spans))
	}
	first := uint64(i) * f.BatchRows
	want := min(f.BatchRows, f.PhysicalRows-first)
	if d.data != nil {
		// tail verification established len(d.data) == File.Size, and
		// the manifest's parts lie inside File.Size.
		start, end := f.File.span(i)
		if int(start) > d.dropped {
			// A scan moves forward: what lies before this batch was
			// decoded (and hashed) already.
			d.m.Drop(d.dropped, int(start))
			d.dropped = int(start) &^ (os.Getpagesize() - 1)
		}
		if err := d.verifyMapped(i, cols); err != nil {
			return nil, 0, err
		}
		if d.ipc == nil {
			sp := &f.File.Spans[i]
			per := d.chk.per
			bs := batchSpan{b: d.data[start:end], first: i == 0, head: sp.Head, parts: sp.Cols, marks: d.chk.parts[i*per : (i+1)*per]}
			return d.decodeSpan(bs, i, cols, int64(want), pos, dst)
		}
	} else {
		start, end := f.File.span(i)
		buf, ok := d.pre[i]
		delete(d.pre, i)
		if !ok {
			var err error
			if buf, err = d.read(d.ctx, int64(start), int64(end-start)); err != nil {
				return nil, 0, err
			}
		}
		if err := verifySpan(f, i, buf); err != nil {
			return nil, 0, err
		}
		if f.File.Format == FormatEncoded {
			sp := &f.File.Spans[i]
			return d.decodeSpan(batchSpan{b: buf, first: i == 0, head: sp.Head, parts: sp.Cols}, i, cols, int64(want), pos, dst)
		}
		d.vr.window = window{off: int64(start), data: buf}
		defer func() { d.vr.window = window{} }()
	}
	defer func() {
		if p := recover(); p != nil {
			for _, a := range out {
				if a != nil {
					a.Release()
				}
			}
			out, rows, err = nil, 0, errorf(ErrCorrupt, "fragment %d: data file %s: batch %d: %v", f.ID, f.DataFile, i, p)
		}
	}()
	b, err := d.ipc.RecordBatchAt(i)
	if err != nil {
		return nil, 0, errorf(ErrCorrupt, "fragment %d: data file %s: batch %d: %w", f.ID, f.DataFile, i, err)
	}
	defer b.Release()
	if uint64(b.NumRows()) != want {
		return nil, 0, errorf(ErrCorrupt, "fragment %d: data file %s: batch %d has %d rows, expected %d", f.ID, f.DataFile, i, b.NumRows(), want)
	}
	out = slices.Grow(dst[:0], len(cols))[:len(cols)]
	clear(out)
	for k, c := range cols {
		a := b.Column(c)
		if d.data != nil && f.File.columnar() && !d.inPart(i, c, a) {
			releaseAll(out[:k])
			return nil, 0, errorf(ErrCorrupt, "fragment %d: data file %s: batch %d: column %d's buffers lie outside its checked part", f.ID, f.DataFile, i, c)
		}
		a.Retain()
		out[k] = a
	}
	return out, b.NumRows(), nil
}

// decodeSpan decodes columns cols of batch i from bs (verified), the
// user columns of a FormatEncoded file from their chunks (only the rows
// at pos when pos is not nil).
func (d *dataFile) decodeSpan(bs batchSpan, i int, cols []int, rows int64, pos []int32, dst []arrow.Array) ([]arrow.Array, int64, error) {
	f := d.f
	ipcRows := rows
	if f.File.Format == FormatEncoded {
		ipcRows = 1
	}
	out, err := bs.decode(d.ftypes, cols, ipcRows, dst)
	if err == nil && f.File.Format == FormatEncoded {
		err = decodeChunks(out, cols, d.utypes, rows, pos, d.mem)
	}
	if err != nil {
		return nil, 0, errorf(ErrCorrupt, "fragment %d: data file %s: batch %d: %w", f.ID, f.DataFile, i, err)
	}
	return out, rows, nil
}

// bytesOf is how many data file bytes reading batch i's columns cols
// takes: on a mapped FormatColumns file the head and those columns'
// parts (the pages touched), else the whole span (a store reader fetches
// it in one range).
func (d *dataFile) bytesOf(i int, cols []int) uint64 {
	fi := &d.f.File
	start, end := fi.span(i)
	if d.data == nil || !fi.columnar() {
		return end - start
	}
	n := fi.Spans[i].Head
	for _, c := range cols {
		n += fi.Spans[i].Cols[c].Len
	}
	return n
}

// verifyMapped checks the parts of batch i of a mapped file that reading
// cols needs, each once per mapping and description (the marks in chk).
func (d *dataFile) verifyMapped(i int, cols []int) error {
	check := func(k int) error {
		m := &d.chk.parts[i*d.chk.per+k]
		if m.Load()&markHashed != 0 {
			return nil
		}
		start, end := d.f.File.span(i)
		if d.f.File.columnar() {
			start, end = d.f.File.partRange(i, k)
		}
		if err := checkPart(d.f, i, k, d.data[start:end]); err != nil {
			return err
		}
		m.Or(markHashed)
		return nil
	}
	if err := check(0); err != nil || !d.f.File.columnar() {
		return err
	}
	for _, c := range cols {
		if err := check(1 + c); err != nil {
			return err
		}
	}
	return nil
}

// verifySpan checks every part of batch i; buf holds its whole span.
func verifySpan(f *Fragment, i int, buf []byte) error {
	if !f.File.columnar() {
		return checkPart(f, i, 0, buf)
	}
	base, _ := f.File.span(i)
	for k := range 1 + len(f.File.Spans[i].Cols) {
		start, end := f.File.partRange(i, k)
		if err := checkPart(f, i, k, buf[start-base:end-base]); err != nil {
			return err
		}
	}
	return nil
}

// inPart reports whether every buffer of column c of batch i (decoded
// zero-copy from the mapping) lies inside the column's verified part: the
// reader's own proof that arrow-go reads no unverified byte, whatever the
// writer recorded.
func (d *dataFile) inPart(i, c int, a arrow.Array) bool {
	start, end := d.f.File.partRange(i, 1+c)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(d.data)))
	lo, hi := base+uintptr(start), base+uintptr(end)
	for _, buf := range a.Data().Buffers() {
		if buf == nil || buf.Len() == 0 {
			continue
		}
		p := uintptr(unsafe.Pointer(unsafe.SliceData(buf.Bytes())))
		if p < lo || p > hi || uintptr(buf.Len()) > hi-p {
			return false
		}
	}
	return true
}

// read returns n bytes at off of a file read through a store.Reader: the
// exact range from a reader that fetches ranges (an object store, which
// then caches exactly that range), else one ReadAt. The bytes are shared
// with a cache: never modified.
func (d *dataFile) read(ctx context.Context, off, n int64) ([]byte, error) {
	var buf []byte
	var err error
	if mr, ok := d.r.(store.MultiRangeReader); ok {
		var bs [][]byte
		if bs, err = mr.ReadRanges(ctx, []store.Range{{Off: off, Len: n}}); err == nil {
			buf = bs[0]
		}
	} else {
		buf = make([]byte, n)
		_, err = d.r.ReadAt(buf, off)
	}
	if err != nil {
		return nil, dataFileErr(d.f, "read", err)
	}
	return buf, nil
}

// dataFileErr wraps a store error on f's data file. A committed data file
// that is not there (removed or lost behind the manifest's back) is
// ErrCorrupt naming the file: the table is damaged, and "not found" would
// read like a wrong table name.
func dataFileErr(f *Fragment, op string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: fragment %d: data file %s is missing (%s: %w)", ErrCorrupt, f.ID, f.DataFile, op, err)
	}
	return fmt.Errorf("table: fragment %d: %s %s: %w", f.ID, op, f.DataFile, err)
}

// readAhead fetches the spans of the next batches a take will decode, the
// distinct values of offs[k]/batchRows from k on (ascending), up to the
// window, when the reader can fetch many ranges at once and nothing
// fetched is pending. Local files (mapped, or one cheap read per batch)
// skip it.
func (d *dataFile) readAhead(ctx context.Context, offs []uint64) error {
	mr, ok := d.r.(store.MultiRangeReader)
	if !ok || len(d.pre) > 0 {
		return nil
	}
	f := d.f
	var batches []int
	var rs []store.Range
	var bytes int64
	for _, o := range offs {
		bi := int(o / f.BatchRows)
		if n := len(batches); n > 0 && batches[n-1] == bi {
			continue
		}
		start, end := f.File.span(bi)
		if len(batches) == prefetchBatches || len(batches) > 0 && bytes+int64(end-start) > prefetchBytes {
			break
		}
		batches = append(batches, bi)
		rs = append(rs, store.Range{Off: int64(start), Len: int64(end - start)})
		bytes += int64(end - start)
	}
	if len(batches) < 2 {
		return nil // one span: batch reads it
	}
	bs, err := mr.ReadRanges(ctx, rs)
	if err != nil {
		return dataFileErr(f, "read", err)
	}
	d.pre = make(map[int][]byte, len(batches))
	for j, bi := range batches {
		d.pre[bi] = bs[j]
	}
	return nil
}

func (d *dataFile) Close() error {
	if d.m != nil {
		d.m.Drop(0, len(d.data))
	}
	if d.ipc != nil {
		d.ipc.Close()
	}
	if d.r != nil {
		return d.r.Close()
	}
	return nil
}

// column selection resolved against the full schema.
type projection struct {
	names  []string
	src    []int // index into the full schema
	schema *arrow.Schema
	user   bool  // some user column is needed (the data file must be read)
	cols   []int // the user columns read, each once, in first-use order
	at     []int // per output column, its index in cols (-1: a system column)
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
		at := -1
		if j < t.m.Schema.NumFields() {
			p.user = true
			if at = slices.Index(p.cols, j); at < 0 {
				at = len(p.cols)
				p.cols = append(p.cols, j)
			}
		}
		p.at = append(p.at, at)
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
