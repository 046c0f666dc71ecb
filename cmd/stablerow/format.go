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

// errArrowOutput: -format arrow (a known format) would write its binary
// stream where text goes (a terminal, or between the prompt's lines). Its
// own sentinel, so the message says what is wrong with where the output
// goes rather than that the format is unknown.
var errArrowOutput = errkind.New(errkind.InvalidArgument, "-format arrow writes a binary Arrow IPC stream")

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
// keys the column names in column order. NULL is null; booleans are JSON
// booleans; finite floats are numbers in PostgreSQL's text form
// (value.FormatFloat); NaN and the infinities, which JSON has no number
// for, are the strings "NaN", "Infinity", "-Infinity" (as PostgreSQL's
// to_json writes them); anything else is a string.
//
// Integers and numerics are JSON numbers, their text exactly as the table
// prints it ("50.50", scale kept), wherever a reader that parses JSON
// numbers into IEEE doubles (JavaScript, jq 1.6, most JSON libraries by
// default) gets that same value back: an integer of magnitude at most
// 2^53, a numeric of at most 15 significant digits (DBL_DIG: such a
// decimal survives the trip through a double). A value past that is a
// JSON string of the same text, so no reader silently rounds it
// (12345678901234567890 would read as 12345678901234567000); the choice
// is per value, so a column of small values is all numbers.
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
	case *array.Int8, *array.Int16, *array.Int32, *array.Uint8, *array.Uint16, *array.Uint32, *array.Boolean:
		return col.ValueStr(r)
	case *array.Int64:
		if v := a.Value(r); v >= -maxExactInt && v <= maxExactInt {
			return col.ValueStr(r)
		}
		return string(s.encode(col.ValueStr(r)))
	case *array.Uint64:
		if a.Value(r) <= maxExactInt {
			return col.ValueStr(r)
		}
		return string(s.encode(col.ValueStr(r)))
	case *array.Decimal128, *array.Decimal256:
		if t := cell(col, r); significantDigits(t) <= maxExactDigits {
			return t
		}
		return string(s.encode(cell(col, r)))
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

// The largest values a double-based JSON reader reads back exactly: every
// integer up to 2^53, every decimal of up to 15 significant digits.
const (
	maxExactInt    = 1 << 53
	maxExactDigits = 15
)

// significantDigits counts the digits of a numeric's text between its
// first and last nonzero digit ("-0.0500" has 1; "0" has 0).
func significantDigits(t string) int {
	first, last := -1, -1
	n := 0 // digits seen
	for i := 0; i < len(t); i++ {
		if c := t[i]; c >= '0' && c <= '9' {
			if c != '0' {
				if first < 0 {
					first = n
				}
				last = n
			}
			n++
		}
	}
	if first < 0 {
		return 0
	}
	return last - first + 1
}
