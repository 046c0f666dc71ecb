package table

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/progress"
)

// fragmentWriter cuts a stream of user-column batches into data files of at
// most maxRows rows, each stored as an Arrow IPC file of batchRows-row
// batches (the take granularity).
type fragmentWriter struct {
	ctx       context.Context
	t         *Table
	mem       memory.Allocator
	maxRows   int
	batchRows int

	buf   bytes.Buffer
	w     *ipc.FileWriter
	file  DataFileInfo        // of the open file: id and the spans written so far
	wsch  *arrow.Schema       // user schema carrying the open file's content id and format
	types []arrow.DataType    // of the file's IPC columns, for batchParts
	chunk []byte              // FormatEncoded: the batch's chunks, reused
	rows  int                 // rows in the open file
	zb    *zoneBuilder        // of the user schema, made with the first file
	zones [][]ColumnZone      // the open file's zone map, one entry per batch written
	skets []*Sketch           // the open file's distinct-count sketch per column (sketch.go)
	pend  []arrow.RecordBatch // slices not yet written as a full batch
	pendN int
	out   []newFragment
	meter *progress.Meter // the statement's, if it watches progress
}

func (t *Table) newFragmentWriter(ctx context.Context, mem memory.Allocator) *fragmentWriter {
	return &fragmentWriter{ctx: ctx, t: t, mem: mem, maxRows: t.opts.MaxRowsPerFragment, batchRows: t.opts.BatchRows,
		meter: progress.From(ctx)}
}

// conform checks that b has the user columns (by name, in order, same
// types) and returns it re-labelled with the table's user schema.
func (t *Table) conform(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	us := t.m.Schema
	if int(b.NumCols()) != us.NumFields() {
		return nil, errorf(ErrSchema, "batch has %d columns, table has %d user columns", b.NumCols(), us.NumFields())
	}
	for i, f := range us.Fields() {
		c := b.Column(i)
		if !arrow.TypeEqual(c.DataType(), f.Type) {
			return nil, errorf(ErrSchema, "column %q: got %s, want %s", f.Name, c.DataType(), f.Type)
		}
		if !f.Nullable && c.NullN() > 0 {
			return nil, errorf(ErrSchema, "column %q is NOT NULL but the batch has %d nulls", f.Name, c.NullN())
		}
	}
	return array.NewRecordBatch(us, b.Columns(), b.NumRows()), nil
}

// write adds the rows of b (already conformed) to the open data file.
func (fw *fragmentWriter) write(b arrow.RecordBatch) error {
	fw.meter.Wrote(b.NumRows())
	for off := int64(0); off < b.NumRows(); {
		room := int64(fw.maxRows - fw.rows)
		n := min(room, b.NumRows()-off)
		s := b.NewSlice(off, off+n)
		err := fw.writeSlice(s)
		s.Release()
		if err != nil {
			return err
		}
		off += n
		if fw.rows == fw.maxRows {
			if err := fw.finishFile(); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeSlice buffers rows so that every IPC batch but the file's last has
// exactly batchRows rows: Take finds batch i of offset o as o / batchRows.
func (fw *fragmentWriter) writeSlice(s arrow.RecordBatch) error {
	if fw.w == nil {
		fw.buf.Reset()
		fw.file = DataFileInfo{Format: FormatColumns}
		if fw.t.opts.EncodedDataFiles {
			fw.file.Format = FormatEncoded
		}
		if _, err := hex.Decode(fw.file.ID[:], []byte(NewID())); err != nil {
			return fmt.Errorf("table: data file id: %w", err)
		}
		us := fw.t.m.Schema
		md := arrow.NewMetadata([]string{metadataFileID, metadataFormat}, []string{fw.file.IDString(), strconv.Itoa(int(fw.file.Format))})
		fw.types = fileTypes(&fw.file, us)
		if fw.zb == nil {
			fw.zb = newZoneBuilder(us)
		}
		fw.zones = fw.zones[:0]
		fw.wsch = arrow.NewSchema(us.Fields(), &md)
		if fw.file.Format == FormatEncoded {
			fw.wsch = encodedSchema(us, &md)
		}
		w, err := ipc.NewFileWriter(&fw.buf, ipc.WithSchema(fw.wsch), ipc.WithAllocator(fw.mem))
		if err != nil {
			return fmt.Errorf("table: open data file: %w", err)
		}
		fw.w = w
	}
	fw.rows += int(s.NumRows())
	for off := int64(0); off < s.NumRows(); {
		need := int64(fw.batchRows - fw.pendN)
		n := min(need, s.NumRows()-off)
		part := s.NewSlice(off, off+n)
		if fw.pendN == 0 && n == int64(fw.batchRows) {
			err := fw.writeBatch(part)
			part.Release()
			if err != nil {
				return err
			}
		} else {
			if err := fw.appendPending(part); err != nil {
				return err
			}
		}
		off += n
		if fw.pendN == fw.batchRows {
			if err := fw.flushPending(); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendPending keeps part until a whole batch is buffered; the parts are
// concatenated once, at flush (concatenating on every append would copy the
// buffer again for each small input batch).
func (fw *fragmentWriter) appendPending(part arrow.RecordBatch) error {
	fw.pend = append(fw.pend, part)
	fw.pendN += int(part.NumRows())
	return nil
}

func (fw *fragmentWriter) flushPending() error {
	if fw.pendN == 0 {
		return nil
	}
	defer fw.releasePending()
	cols := make([]arrow.Array, fw.t.m.Schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	parts := make([]arrow.Array, len(fw.pend))
	for c := range cols {
		for i, p := range fw.pend {
			parts[i] = p.Column(c)
		}
		a, err := array.Concatenate(parts, fw.mem)
		if err != nil {
			return fmt.Errorf("table: buffer rows: %w", err)
		}
		cols[c] = a
	}
	b := array.NewRecordBatch(fw.t.m.Schema, cols, int64(fw.pendN))
	err := fw.writeBatch(b)
	b.Release()
	return err
}

// writeBatch writes one IPC record batch and records its span and the
// CRCs of its head and column parts: arrow-go's file writer writes each
// payload straight through to buf, so the bytes added by this Write are
// exactly the batch (plus, for the first, the magic and schema message
// before it).
func (fw *fragmentWriter) writeBatch(b arrow.RecordBatch) error {
	start := uint64(fw.buf.Len())
	if fs := fw.file.Spans; len(fs) > 0 && fs[len(fs)-1].End != start {
		return fmt.Errorf("%w: table: data file writer: batch %d starts at %d, the previous span ends at %d", errkind.Internal, len(fs), start, fs[len(fs)-1].End)
	}
	var rb arrow.RecordBatch
	if fw.file.Format == FormatEncoded {
		var err error
		if rb, err = encodeBatch(fw.wsch, b, &fw.chunk); err != nil {
			return err
		}
	} else {
		rb = array.NewRecordBatch(fw.wsch, b.Columns(), b.NumRows())
	}
	err := fw.w.Write(rb)
	rb.Release()
	if err != nil {
		return fmt.Errorf("table: write data file: %w", err)
	}
	end := uint64(fw.buf.Len())
	first := len(fw.file.Spans) == 0
	sp := fw.buf.Bytes()[0:end]
	if !first {
		sp = sp[start:]
	}
	head, lens, err := batchParts(sp, first, fw.types)
	if err != nil {
		return err
	}
	s := Span{End: end, CRC: crc32c(sp[:head]), Head: head, Cols: make([]ColumnPart, len(lens))}
	off := head
	for c, n := range lens {
		s.Cols[c] = ColumnPart{Len: n, CRC: crc32c(sp[off : off+n])}
		off += n
	}
	fw.file.Spans = append(fw.file.Spans, s)
	fw.zones = append(fw.zones, fw.zb.batch(b))
	if fw.skets == nil {
		fw.skets = make([]*Sketch, b.NumCols())
		for c := range fw.skets {
			fw.skets[c] = &Sketch{}
		}
	}
	for c, sk := range fw.skets {
		sk.addColumn(b.Column(c), fw.zb.trim[c], nil)
	}
	return nil
}

func (fw *fragmentWriter) releasePending() {
	for _, p := range fw.pend {
		p.Release()
	}
	fw.pend, fw.pendN = nil, 0
}

func (fw *fragmentWriter) finishFile() error {
	if fw.w == nil {
		return nil
	}
	if err := fw.flushPending(); err != nil {
		return err
	}
	if err := fw.w.Close(); err != nil {
		return fmt.Errorf("table: close data file: %w", err)
	}
	fw.w = nil
	data := fw.buf.Bytes()
	fw.file.Size = uint64(len(data))
	fw.file.TailCRC = crc32c(data[fw.file.tailStart():])
	fw.file.Zones = encodeZoneMap(&ZoneMap{Batches: fw.zones, Sketches: fw.skets}, fw.zb.kinds)
	fw.zones, fw.skets = nil, nil // the next file's batches start a new map and new sketches
	path := "data/" + fw.file.IDString() + ".arrow"
	if err := coverFile(fw.ctx, path); err != nil {
		return err
	}
	if err := fw.t.st.Put(fw.ctx, path, bytes.Clone(data)); err != nil {
		return fmt.Errorf("table: store data file: %w", err)
	}
	fw.out = append(fw.out, newFragment{dataFile: path, file: fw.file, rows: uint64(fw.rows), batchRows: uint64(fw.batchRows)})
	fw.file = DataFileInfo{}
	fw.rows = 0
	return nil
}

// finish closes the open file and returns the fragments written.
func (fw *fragmentWriter) finish() ([]newFragment, error) {
	if err := fw.finishFile(); err != nil {
		return nil, err
	}
	return fw.out, nil
}

// abort drops buffered state; files already stored become orphans that
// Cleanup removes (they are referenced by no manifest).
func (fw *fragmentWriter) abort() {
	fw.releasePending()
	if fw.w != nil {
		_ = fw.w.Close()
		fw.w = nil
	}
}

// Append adds the rows of rdr (user columns, in table order) as new
// fragments with fresh, increasing row ids, and commits a new version.
func (t *Table) Append(ctx context.Context, rdr array.RecordReader, mem memory.Allocator) (_ *Table, err error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	ctx, end := t.hold(ctx, "append")
	defer end(&err)
	fw := t.newFragmentWriter(ctx, mem)
	for rdr.Next() {
		if err := ctx.Err(); err != nil {
			fw.abort()
			return nil, err
		}
		b, err := t.conform(rdr.RecordBatch())
		if err != nil {
			fw.abort()
			return nil, err
		}
		err = fw.write(b)
		b.Release()
		if err != nil {
			fw.abort()
			return nil, err
		}
	}
	if err := rdr.Err(); err != nil {
		fw.abort()
		return nil, fmt.Errorf("table: append input: %w", err)
	}
	frags, err := fw.finish()
	if err != nil {
		fw.abort()
		return nil, err
	}
	if len(frags) == 0 {
		return t, nil
	}
	return t.commit(ctx, &txn{kind: "append", base: t.m, add: frags})
}

// AppendBatches is Append over a slice of batches (user columns).
func (t *Table) AppendBatches(ctx context.Context, batches []arrow.RecordBatch, mem memory.Allocator) (*Table, error) {
	return t.Append(ctx, &sliceReader{schema: t.m.Schema, batches: batches, i: -1}, mem)
}

// sliceReader is a RecordReader over batches it does not own; unlike
// array.NewRecordReader it does not insist on identical field metadata.
type sliceReader struct {
	schema  *arrow.Schema
	batches []arrow.RecordBatch
	i       int
}

func (r *sliceReader) Retain()                        {}
func (r *sliceReader) Release()                       {}
func (r *sliceReader) Schema() *arrow.Schema          { return r.schema }
func (r *sliceReader) Next() bool                     { r.i++; return r.i < len(r.batches) }
func (r *sliceReader) RecordBatch() arrow.RecordBatch { return r.batches[r.i] }
func (r *sliceReader) Record() arrow.RecordBatch      { return r.batches[r.i] }
func (r *sliceReader) Err() error                     { return nil }
