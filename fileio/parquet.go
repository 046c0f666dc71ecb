package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ParquetReader streams a Parquet file's rows as batches of the engine's
// types (EngineSchema of the file's schema). pqarrow reads each column
// chunk page by page for a batch (not in parallel, not the whole row group),
// so memory is a batch plus a page per column.
//
//	open (schema from the footer) --> reading --(last row group)--> done
type ParquetReader struct {
	schema *arrow.Schema // engine types
	file   *file.Reader
	rr     pqarrow.RecordReader
	mem    memory.Allocator
	closer io.Closer
}

// ParquetSchema reads the engine schema of a Parquet file from its footer
// (read_parquet's plan-time schema).
func ParquetSchema(r parquet.ReaderAtSeeker) (*arrow.Schema, error) {
	pf, err := file.NewParquetReader(r)
	if err != nil {
		return nil, fmt.Errorf("%w: parquet: %w", ErrFormat, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("%w: parquet: %w", ErrFormat, err)
	}
	s, err := fr.Schema()
	if err != nil {
		return nil, fmt.Errorf("%w: parquet schema: %w", ErrFormat, err)
	}
	return EngineSchema(s)
}

// NewParquetReader opens a Parquet stream on r (closed by Close when it is
// an io.Closer).
func NewParquetReader(ctx context.Context, r parquet.ReaderAtSeeker, mem memory.Allocator, batchSize int) (_ *ParquetReader, err error) {
	c, _ := r.(io.Closer)
	defer func() {
		if err != nil && c != nil {
			c.Close()
		}
	}()
	if batchSize <= 0 {
		batchSize = 8192
	}
	// A buffered stream reads a column chunk a buffer at a time, not whole:
	// memory is bounded by pages, not by the row group's size.
	props := parquet.NewReaderProperties(mem)
	props.BufferedStreamEnabled = true
	pf, err := file.NewParquetReader(r, file.WithReadProps(props))
	if err != nil {
		return nil, fmt.Errorf("%w: parquet: %w", ErrFormat, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(batchSize)}, mem)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%w: parquet: %w", ErrFormat, err)
	}
	fs, err := fr.Schema()
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%w: parquet schema: %w", ErrFormat, err)
	}
	es, err := EngineSchema(fs)
	if err != nil {
		pf.Close()
		return nil, err
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%w: parquet: %w", ErrFormat, err)
	}
	return &ParquetReader{schema: es, file: pf, rr: rr, mem: mem, closer: c}, nil
}

func (p *ParquetReader) Schema() *arrow.Schema { return p.schema }

// Next returns the next batch, io.EOF at the end.
func (p *ParquetReader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.rr == nil {
		return nil, io.EOF
	}
	if !p.rr.Next() {
		if err := p.rr.Err(); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: parquet: %w", ErrFormat, err)
		}
		return nil, io.EOF
	}
	return Conform(ctx, p.mem, p.rr.RecordBatch(), p.schema)
}

func (p *ParquetReader) Close() error {
	if p.rr != nil {
		p.rr.Release()
		p.rr = nil
	}
	var err error
	if p.file != nil {
		err = p.file.Close()
		p.file = nil
	}
	if p.closer != nil {
		p.closer.Close()
		p.closer = nil
	}
	return err
}

// ParquetWriter writes batches to a Parquet file, one row group per
// RowGroupRows rows (buffered column by column, so memory is a row group's
// encoded pages, bounded by the row group length).
type ParquetWriter struct {
	fw      *pqarrow.FileWriter
	rgRows  int64
	inGroup int64
	n       int64
}

// RowGroupRows is the row group length ParquetWriter cuts at.
const RowGroupRows = 128 << 10

// NewParquetWriter writes schema's batches to w.
func NewParquetWriter(w io.Writer, schema *arrow.Schema, mem memory.Allocator) (*ParquetWriter, error) {
	for _, f := range schema.Fields() {
		if err := checkWritable(f); err != nil {
			return nil, err
		}
	}
	props := parquet.NewWriterProperties(parquet.WithAllocator(mem), parquet.WithMaxRowGroupLength(RowGroupRows))
	fw, err := pqarrow.NewFileWriter(schema, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem), pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, fmt.Errorf("%w: parquet: %w", ErrSchema, err)
	}
	return &ParquetWriter{fw: fw, rgRows: RowGroupRows}, nil
}

func (p *ParquetWriter) Rows() int64 { return p.n }

func (p *ParquetWriter) Write(b arrow.RecordBatch) error {
	if p.inGroup > 0 && p.inGroup+b.NumRows() > p.rgRows {
		p.fw.NewBufferedRowGroup()
		p.inGroup = 0
	}
	if err := p.fw.WriteBuffered(b); err != nil {
		return fmt.Errorf("parquet write: %w", err)
	}
	p.inGroup += b.NumRows()
	p.n += b.NumRows()
	return nil
}

// Close writes the footer (the caller closes the underlying file).
func (p *ParquetWriter) Close() error { return p.fw.Close() }
