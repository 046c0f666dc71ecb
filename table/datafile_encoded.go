package table

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table/encoding"
)

// A FormatEncoded data file is an Arrow IPC file whose schema has one
// non-null binary field per user column, and whose batch i is one row:
// per column the chunk (table/encoding) of rows [i×BatchRows, ...) of
// that column. The IPC framing keeps FormatColumns' layout and checks:
// a head and one part per column, each with its CRC, so a scan of 4 of
// 16 columns still hashes and decodes those 4 chunks only, and a point
// take reads one span per batch. The row count of a batch is the
// manifest's, checked against each chunk's.

// fileTypes are the types of the data file's IPC columns as fi describes
// it: the user columns' for FormatSpans and FormatColumns, binary (one
// chunk each) for FormatEncoded.
func fileTypes(fi *DataFileInfo, us *arrow.Schema) []arrow.DataType {
	types := make([]arrow.DataType, us.NumFields())
	for i, f := range us.Fields() {
		types[i] = f.Type
		if fi.Format == FormatEncoded {
			types[i] = arrow.BinaryTypes.Binary
		}
	}
	return types
}

// encodedSchema is the IPC schema of a FormatEncoded file of user schema
// us, with the file's metadata.
func encodedSchema(us *arrow.Schema, md *arrow.Metadata) *arrow.Schema {
	fs := make([]arrow.Field, us.NumFields())
	for i, f := range us.Fields() {
		fs[i] = arrow.Field{Name: f.Name, Type: arrow.BinaryTypes.Binary}
	}
	return arrow.NewSchema(fs, md)
}

// encodeBatch is the one-row IPC batch of b's columns' chunks (schema:
// encodedSchema). scratch is reused across batches.
func encodeBatch(sch *arrow.Schema, b arrow.RecordBatch, scratch *[]byte) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, b.NumCols())
	buf := (*scratch)[:0]
	ends := make([]int, b.NumCols())
	for c := range cols {
		var err error
		if buf, err = encoding.Encode(buf, b.Column(c)); err != nil {
			return nil, fmt.Errorf("table: encode column %d: %w", c, err)
		}
		ends[c] = len(buf)
	}
	if len(buf) > math.MaxInt32 {
		// A binary value's offsets are int32: a batch this large needs
		// a smaller BatchRows.
		return nil, fmt.Errorf("%w: table: a batch's chunks take %d bytes, more than a binary value holds", ErrInvalidArgument, len(buf))
	}
	*scratch = buf
	start := 0
	for c := range cols {
		offs := arrow.Int32Traits.CastToBytes([]int32{0, int32(ends[c] - start)})
		data := array.NewData(arrow.BinaryTypes.Binary, 1,
			[]*memory.Buffer{nil, memory.NewBufferBytes(offs), memory.NewBufferBytes(buf[start:ends[c]])}, nil, 0, 0)
		cols[c] = array.MakeFromData(data)
		data.Release()
		start = ends[c]
	}
	rb := array.NewRecordBatch(sch, cols, 1)
	for _, a := range cols {
		a.Release()
	}
	return rb, nil
}

// decodeChunks replaces each one-value binary array of out (the chunks
// of columns cols) with the decoded column of rows values, or with its
// values at pos when pos is not nil (a take: encoding.DecodeRows); on
// error it releases out. The decoded arrays may share the chunks' bytes,
// which live as long as the mapping or read buffer they came from.
func decodeChunks(out []arrow.Array, cols []int, utypes []arrow.DataType, rows int64, pos []int32, mem memory.Allocator) error {
	for k, a := range out {
		bin, ok := a.(*array.Binary)
		if !ok || bin.Len() != 1 || bin.IsNull(0) {
			releaseAll(out)
			clear(out)
			return fmt.Errorf("column %d is not one chunk", cols[k])
		}
		var col arrow.Array
		var err error
		if pos != nil {
			col, err = encoding.DecodeRows(utypes[cols[k]], int(rows), bin.Value(0), pos, mem)
		} else {
			col, err = encoding.Decode(utypes[cols[k]], int(rows), bin.Value(0), mem)
		}
		if err != nil {
			releaseAll(out)
			clear(out)
			return fmt.Errorf("column %d: %w", cols[k], err)
		}
		a.Release()
		out[k] = col
	}
	return nil
}
