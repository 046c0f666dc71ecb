package fileio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkFormats writes and reads 256K rows of (bigint, float8, text,
// bool) through each format in memory; rows/s is the figure.
func BenchmarkFormats(b *testing.B) {
	const rows, batch = 256 << 10, 8192
	mem := memory.NewGoAllocator()
	var batches []arrow.RecordBatch
	for s := 0; s < rows; s += batch {
		batches = append(batches, bigBatch(mem, s, batch))
	}
	write := func(f Format, buf *bytes.Buffer) {
		var w interface {
			Write(arrow.RecordBatch) error
			Close() error
		}
		var err error
		if f == Parquet {
			w, err = NewParquetWriter(buf, testSchema, mem)
		} else {
			w, err = NewCSVWriter(buf, testSchema, Options{})
		}
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range batches {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []Format{Parquet, CSV} {
		b.Run("write/"+string(f), func(b *testing.B) {
			for b.Loop() {
				var buf bytes.Buffer
				write(f, &buf)
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
		var buf bytes.Buffer
		write(f, &buf)
		data := buf.Bytes()
		b.Run("read/"+string(f), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var r interface {
					Next(context.Context) (arrow.RecordBatch, error)
					Close() error
				}
				var err error
				if f == Parquet {
					r, err = NewParquetReader(context.Background(), bytes.NewReader(data), mem, batch)
				} else {
					r, err = NewCSVReader(bytes.NewReader(data), testSchema, Options{}, mem, batch)
				}
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for {
					rec, err := r.Next(context.Background())
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					n += int(rec.NumRows())
					rec.Release()
				}
				r.Close()
				if n != rows {
					b.Fatalf("%d rows", n)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
