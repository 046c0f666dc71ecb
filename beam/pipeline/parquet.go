package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store"
)

// ErrIDs: an ids file that is not Parquet, lacks the id column, holds a
// column of another type, or a NULL or negative id.
var ErrIDs = errkind.New(errkind.InvalidArgument, "pipeline: bad ids file")

// encodeParquet writes batches as one Parquet file (zstd), in memory: a
// take task's output is bounded by its MaxTaskRows.
func encodeParquet(schema *arrow.Schema, mem memory.Allocator, batches ...arrow.RecordBatch) ([]byte, error) {
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf,
		parquet.NewWriterProperties(parquet.WithAllocator(mem), parquet.WithCompression(compress.Codecs.Zstd)),
		pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem), pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, err
	}
	for _, b := range batches {
		if err := w.Write(b); err != nil {
			_ = w.Close()
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readParquet calls f with each batch of the Parquet object name in st
// (the columns named, or all when columns is nil).
func readParquet(ctx context.Context, st store.Store, name string, columns []string, mem memory.Allocator, f func(arrow.RecordBatch) error) error {
	r, err := st.Open(ctx, name)
	if err != nil {
		return err
	}
	defer r.Close()
	pf, err := file.NewParquetReader(io.NewSectionReader(r, 0, r.Size()), file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrIDs, name, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16, Parallel: false}, mem)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrIDs, name, err)
	}
	var cols []int
	for _, c := range columns {
		i := pf.MetaData().Schema.ColumnIndexByName(c)
		if i < 0 {
			return fmt.Errorf("%w: %s has no column %q", ErrIDs, name, c)
		}
		cols = append(cols, i)
	}
	rr, err := fr.GetRecordReader(ctx, cols, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		if err := f(rr.RecordBatch()); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return err
	}
	return nil
}

// ReadIDs reads the row ids of column (uint64, or non-negative int64;
// "" means "id", or the file's only column) of the Parquet file at loc, a
// local path or s3://bucket/key.
func ReadIDs(ctx context.Context, loc, column string, mem memory.Allocator) ([]uint64, error) {
	st, name, err := openFile(ctx, loc)
	if err != nil {
		return nil, err
	}
	if column == "" {
		column = "id"
	}
	var ids []uint64
	err = readParquet(ctx, st, name, []string{column}, mem, func(b arrow.RecordBatch) error {
		c := b.Column(0)
		if c.NullN() > 0 {
			return fmt.Errorf("%w: %s: NULL in column %q", ErrIDs, loc, column)
		}
		switch a := c.(type) {
		case *array.Uint64:
			ids = append(ids, a.Uint64Values()...)
		case *array.Int64:
			for _, v := range a.Int64Values() {
				if v < 0 {
					return fmt.Errorf("%w: %s: negative id %d", ErrIDs, loc, v)
				}
				ids = append(ids, uint64(v))
			}
		default:
			return fmt.Errorf("%w: %s: column %q is %s, want uint64 or int64", ErrIDs, loc, column, c.DataType())
		}
		return nil
	})
	return ids, err
}

// WriteIDs writes ids as a Parquet file of one uint64 column "id" at loc
// (tests, benchmarks, and users who have ids in memory).
func WriteIDs(ctx context.Context, loc string, ids []uint64, mem memory.Allocator) error {
	st, name, err := openFile(ctx, loc)
	if err != nil {
		return err
	}
	b := array.NewUint64Builder(mem)
	defer b.Release()
	b.AppendValues(ids, nil)
	a := b.NewArray()
	defer a.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Uint64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{a}, int64(len(ids)))
	defer rec.Release()
	data, err := encodeParquet(schema, mem, rec)
	if err != nil {
		return err
	}
	return st.Put(ctx, name, data)
}
