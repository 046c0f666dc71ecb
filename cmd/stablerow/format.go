package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/errkind"
)

// errFormat: -format names no output format.
var errFormat = errkind.New(errkind.InvalidArgument, "unknown output format")

// formats are the values of -format.
var formats = []string{"table", "csv", "json", "arrow"}

// rowSink writes the rows of one result in one format; printRows decides
// which rows (the -max-rows cap) and prints the counts.
type rowSink interface {
	row(b arrow.RecordBatch, r int) // row r of b
	finish() error                  // flush; the first write error, if any
}

// batchSink is a rowSink that takes whole batches: printRows hands it the
// first n rows of each batch rather than one row at a time.
type batchSink interface {
	rowSink
	batch(b arrow.RecordBatch, n int)
}

func newRowSink(format string, w io.Writer, schema *arrow.Schema) (rowSink, error) {
	switch format {
	case "", "table":
		return newTablePrinter(w, schema), nil
	case "csv":
		return newCSVSink(w, schema), nil
	case "json":
		return newJSONSink(w, schema), nil
	case "arrow":
		return newArrowSink(w, schema), nil
	}
	return nil, fmt.Errorf("%w: %q (want one of %v)", errFormat, format, formats)
}

// csvSink writes RFC 4180 CSV through encoding/csv: a header line of the
// column names, then one record per row. Values are as the table shows
// them, but NULL is an empty field (as PostgreSQL's COPY ... CSV writes
// it; an empty string is empty too: -format json tells them apart).
type csvSink struct {
	w   *csv.Writer
	rec []string
}

func newCSVSink(w io.Writer, schema *arrow.Schema) *csvSink {
	s := &csvSink{w: csv.NewWriter(w), rec: make([]string, schema.NumFields())}
	for i, f := range schema.Fields() {
		s.rec[i] = f.Name
	}
	_ = s.w.Write(s.rec) // a write error stays in the writer: finish returns it
	return s
}

func (s *csvSink) row(b arrow.RecordBatch, r int) {
	for c := range s.rec {
		if col := b.Column(c); col.IsNull(r) {
			s.rec[c] = ""
		} else {
			s.rec[c] = cell(col, r)
		}
	}
	_ = s.w.Write(s.rec)
}

func (s *csvSink) finish() error {
	s.w.Flush()
	return s.w.Error()
}

// jsonSink writes one JSON object per row and per line (JSON Lines), its
// keys the column names in column order. NULL is null; integers and
// booleans are JSON numbers and booleans; finite floats are numbers in
// PostgreSQL's text form (exec.FormatFloat); NaN and the infinities, which
// JSON has no number for, are the strings "NaN", "Infinity", "-Infinity"
// (as PostgreSQL's to_json writes them); anything else is a string.
type jsonSink struct {
	w    *bufio.Writer
	keys [][]byte // each column name, encoded
	buf  bytes.Buffer
	enc  *json.Encoder
}

func newJSONSink(w io.Writer, schema *arrow.Schema) *jsonSink {
	s := &jsonSink{w: bufio.NewWriter(w)}
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false)
	for _, f := range schema.Fields() {
		s.keys = append(s.keys, s.encode(f.Name))
	}
	return s
}

// encode is v as JSON text (a fresh copy).
func (s *jsonSink) encode(v string) []byte {
	s.buf.Reset()
	_ = s.enc.Encode(v) // a string always encodes
	return bytes.Clone(bytes.TrimSuffix(s.buf.Bytes(), []byte("\n")))
}

func (s *jsonSink) row(b arrow.RecordBatch, r int) {
	s.w.WriteByte('{')
	for c, k := range s.keys {
		if c > 0 {
			s.w.WriteByte(',')
		}
		s.w.Write(k)
		s.w.WriteByte(':')
		s.w.WriteString(s.value(b.Column(c), r))
	}
	s.w.WriteString("}\n")
}

func (s *jsonSink) value(col arrow.Array, r int) string {
	if col.IsNull(r) {
		return "null"
	}
	switch a := col.(type) {
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64,
		*array.Uint8, *array.Uint16, *array.Uint32, *array.Uint64, *array.Boolean:
		return col.ValueStr(r)
	case *array.Float64:
		if f := a.Value(r); math.IsNaN(f) || math.IsInf(f, 0) {
			return string(s.encode(cell(col, r)))
		}
		return cell(col, r)
	case *array.Float32:
		if f := float64(a.Value(r)); math.IsNaN(f) || math.IsInf(f, 0) {
			return string(s.encode(cell(col, r)))
		}
		return cell(col, r)
	}
	return string(s.encode(cell(col, r)))
}

func (s *jsonSink) finish() error { return s.w.Flush() }
