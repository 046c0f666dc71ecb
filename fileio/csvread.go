package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/value"
)

// CSVReader streams a CSV file as batches of the target schema, batchSize
// rows at a time: memory is one batch, whatever the file's size.
//
//	start --(Header)--> skip line --> reading --(EOF)--> done
//	                    reading --(bad value)--> failed (error names line, column)
type CSVReader struct {
	schema    *arrow.Schema
	tok       *csvTokenizer
	opt       Options
	mem       memory.Allocator
	batchSize int
	closer    io.Closer
	started   bool
	done      bool
	err       error
}

// NewCSVReader reads r (closed by Close when it is an io.Closer) as CSV
// whose columns are schema's, in order.
func NewCSVReader(r io.Reader, schema *arrow.Schema, opt Options, mem memory.Allocator, batchSize int) (*CSVReader, error) {
	opt.Format = CSV
	opt, err := opt.Resolve("")
	if err != nil {
		return nil, err
	}
	for _, f := range schema.Fields() {
		if _, err := EngineType(f); err != nil {
			return nil, err
		}
	}
	if batchSize <= 0 {
		batchSize = 8192
	}
	c, _ := r.(io.Closer)
	return &CSVReader{schema: schema, tok: newCSVTokenizer(r, byte(opt.Delimiter), opt.quoteByte()), opt: opt, mem: mem, batchSize: batchSize, closer: c}, nil
}

func (r *CSVReader) Schema() *arrow.Schema { return r.schema }

func (r *CSVReader) Close() error {
	if r.closer != nil {
		c := r.closer
		r.closer = nil
		return c.Close()
	}
	return nil
}

// Next returns the next batch, io.EOF at the end.
func (r *CSVReader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.done {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b := array.NewRecordBuilder(r.mem, r.schema)
	defer b.Release()
	n := 0
	if !r.started {
		r.started = true
		if r.opt.Header || r.opt.DetectHeader {
			rec, line, err := r.tok.next()
			// Blank lines before the header are skipped as the sniffer
			// skipped them (read_csv), else the header would be read as data.
			for err == nil && r.opt.SkipBlankLines && blank(rec) {
				rec, line, err = r.tok.next()
			}
			if errors.Is(err, io.EOF) {
				r.done = true
				return nil, io.EOF
			}
			if err == nil && !r.opt.Header && !r.isHeader(rec) {
				// Data after all: the first row of the batch.
				if err = r.appendRecord(b, rec, line); err == nil {
					n++
				}
			}
			if err != nil {
				r.err = err
				return nil, err
			}
		}
	}
	for n < r.batchSize {
		rec, line, err := r.tok.next()
		if errors.Is(err, io.EOF) {
			r.done = true
			break
		}
		if err == nil && r.opt.SkipBlankLines && blank(rec) {
			continue
		}
		if err == nil {
			err = r.appendRecord(b, rec, line)
		}
		if err != nil {
			r.err = err
			return nil, err
		}
		n++
	}
	if n == 0 {
		return nil, io.EOF
	}
	return b.NewRecordBatch(), nil
}

func (r *CSVReader) appendRecord(b *array.RecordBuilder, rec []csvField, line int) error {
	if r.opt.TrailingDelimiter && len(rec) == r.schema.NumFields()+1 {
		// Only the field past the last column: a line without the
		// trailing delimiter keeps its own empty last column.
		rec = dropTrailing(rec)
	}
	if len(rec) != r.schema.NumFields() {
		if len(rec) < r.schema.NumFields() {
			return fmt.Errorf("%w: line %d: missing data for column %q", ErrFormat, line, r.schema.Field(len(rec)).Name)
		}
		return fmt.Errorf("%w: line %d: extra data after last expected column", ErrFormat, line)
	}
	for i, f := range rec {
		fld := r.schema.Field(i)
		if !f.quoted && f.text == r.opt.Null {
			if !fld.Nullable {
				return fmt.Errorf("%w: line %d: null value in column %q violates not-null constraint", ErrSchema, line, fld.Name)
			}
			b.Field(i).AppendNull()
			continue
		}
		if err := appendText(b.Field(i), f.text); err != nil {
			return fmt.Errorf("line %d, column %q: %w", line, fld.Name, err)
		}
	}
	return nil
}

// appendText parses s as PostgreSQL's input function for the builder's
// type does (bigint, double precision, boolean, text).
func appendText(fb array.Builder, s string) error {
	switch b := fb.(type) {
	case *array.StringBuilder:
		b.Append(s)
	case *array.Int64Builder:
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return fmt.Errorf("%w: value %q is out of range for type bigint", errkind.OutOfRange, s)
			}
			return fmt.Errorf("%w: invalid input syntax for type bigint: %q", ErrFormat, s)
		}
		b.Append(v)
	case *array.Float64Builder:
		v, err := parseFloat8(s)
		if err != nil {
			return err
		}
		b.Append(v)
	case *array.Int32Builder:
		v, err := parseInt(s, 32, "integer")
		if err != nil {
			return err
		}
		b.Append(int32(v))
	case *array.Int16Builder:
		v, err := parseInt(s, 16, "smallint")
		if err != nil {
			return err
		}
		b.Append(int16(v))
	case *array.Float32Builder:
		t := strings.TrimSpace(s)
		v, err := strconv.ParseFloat(t, 32)
		if err != nil || (math.IsInf(v, 0) && !isInfText(t)) || strings.ContainsAny(t, "_xXpP") {
			if errors.Is(err, strconv.ErrRange) {
				return fmt.Errorf("%w: %q is out of range for type real", errkind.OutOfRange, s)
			}
			return fmt.Errorf("%w: invalid input syntax for type real: %q", ErrFormat, s)
		}
		b.Append(float32(v))
	case *array.Date32Builder:
		d, err := value.ParseDate(s)
		if err != nil {
			return err
		}
		b.Append(arrow.Date32(d))
	case *array.TimestampBuilder:
		v, err := value.ParseTimestamp(s)
		if err != nil {
			return err
		}
		b.Append(arrow.Timestamp(v))
	case *array.Decimal128Builder:
		t := b.Type().(*arrow.Decimal128Type)
		v, err := value.ParseDecimal(s, t.Precision, t.Scale)
		if err != nil {
			return err
		}
		b.Append(v)
	case *array.BooleanBuilder:
		v, ok := value.ParseBool(s)
		if !ok {
			return fmt.Errorf("%w: invalid input syntax for type boolean: %q", ErrFormat, s)
		}
		b.Append(v)
	default:
		return fmt.Errorf("%w: %s", ErrUnsupportedType, fb.Type())
	}
	return nil
}

// parseFloat8 reads a double precision as float8in does.
func parseFloat8(s string) (float64, error) {
	t := strings.TrimSpace(s)
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || (math.IsInf(v, 0) && !isInfText(t)) || strings.ContainsAny(t, "_xXpP") {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%w: %q is out of range for type double precision", errkind.OutOfRange, s)
		}
		return 0, fmt.Errorf("%w: invalid input syntax for type double precision: %q", ErrFormat, s)
	}
	return v, nil
}

// parseInt reads an integer of bits bits as int2in/int4in do.
func parseInt(s string, bits int, name string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%w: value %q is out of range for type %s", errkind.OutOfRange, s, name)
		}
		return 0, fmt.Errorf("%w: invalid input syntax for type %s: %q", ErrFormat, name, s)
	}
	return v, nil
}

// isInfText: PostgreSQL's float8in accepts inf and infinity (any case,
// signed); strconv's ParseFloat accepts them too, but also returns ±Inf
// for an overflowing number, which PostgreSQL refuses.
func isInfText(t string) bool {
	t = strings.ToLower(strings.TrimLeft(t, "+-"))
	return t == "inf" || t == "infinity"
}

// isHeader decides whether the first record rec is a header (DetectHeader):
// a field that does not read as its column's type makes it one; when
// every column is text, only the column names do (case-insensitively), so
// a text table never loses a row of data to the guess. It also sets
// TrailingDelimiter when rec has one empty field more than the columns.
func (r *CSVReader) isHeader(rec []csvField) bool {
	n := r.schema.NumFields()
	if !r.opt.TrailingDelimiter && len(rec) == n+1 && !rec[n].quoted && rec[n].text == "" {
		r.opt.TrailingDelimiter = true
	}
	if r.opt.TrailingDelimiter {
		rec = dropTrailing(rec)
	}
	allText, names := true, len(rec) == n
	for i, f := range rec {
		if i >= n {
			break
		}
		fld := r.schema.Field(i)
		if !strings.EqualFold(strings.TrimSpace(f.text), fld.Name) {
			names = false
		}
		if fld.Type.ID() == arrow.STRING {
			continue
		}
		allText = false
		if !f.quoted && f.text == r.opt.Null {
			continue
		}
		fb := array.NewBuilder(r.mem, fld.Type)
		err := appendText(fb, f.text)
		fb.Release()
		if err != nil {
			return true
		}
	}
	return allText && names
}

// quoteByte is the tokenizer's quote byte (0: none).
func (o Options) quoteByte() byte {
	if o.NoQuote {
		return 0
	}
	if o.Quote == 0 {
		return '"'
	}
	return byte(o.Quote)
}

// blank reports whether a record is a line with nothing on it.
func blank(rec []csvField) bool {
	return len(rec) == 1 && !rec[0].quoted && rec[0].text == ""
}

// dropTrailing drops the empty unquoted field a trailing delimiter leaves
// after the last column (a line without one keeps its fields).
func dropTrailing(rec []csvField) []csvField {
	if n := len(rec); n > 1 && !rec[n-1].quoted && rec[n-1].text == "" {
		return rec[:n-1]
	}
	return rec
}
