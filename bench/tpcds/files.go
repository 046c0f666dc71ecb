package tpcds

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ParquetPath is where WriteParquet puts a table's file.
func ParquetPath(dir, table string) string { return filepath.Join(dir, table+".parquet") }

// WriteParquet generates every table into dir/<table>.parquet (Snappy,
// row groups of 1M rows). Files are written under a temporary name and
// renamed when complete, so a file that exists is whole.
func (g *Generator) WriteParquet(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	type out struct {
		w   *pqarrow.FileWriter
		tmp string
	}
	outs := map[string]*out{}
	closeAll := func() {
		for _, o := range outs {
			o.w.Close()
			os.Remove(o.tmp)
		}
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(1<<20), parquet.WithAllocator(g.Mem))
	for _, t := range Tables {
		tmp := ParquetPath(dir, t.Name) + ".tmp"
		f, err := os.Create(tmp)
		if err != nil {
			closeAll()
			return err
		}
		w, err := pqarrow.NewFileWriter(t.Schema, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(g.Mem)))
		if err != nil {
			f.Close()
			closeAll()
			return err
		}
		outs[t.Name] = &out{w: w, tmp: tmp}
	}
	err := g.Generate(ctx, func(table string, b arrow.RecordBatch) error {
		return outs[table].w.WriteBuffered(b)
	})
	if err != nil {
		closeAll()
		return fmt.Errorf("tpcds: generate: %w", err)
	}
	var errs []error
	for name, o := range outs {
		if err := o.w.Close(); err != nil { // closes the file too
			errs = append(errs, err)
			continue
		}
		errs = append(errs, os.Rename(o.tmp, ParquetPath(dir, name)))
	}
	return errors.Join(errs...)
}
