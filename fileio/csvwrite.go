package fileio

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stablerow/stablerow/value"
)

// CSVWriter writes batches as PostgreSQL's COPY ... TO (FORMAT csv) does:
// NULL as the NULL string unquoted; a value quoted when it holds the
// delimiter, a quote, CR or LF, or equals the NULL string (so it reads back
// as text, not NULL); floats through value.FormatFloat, booleans t/f.
type CSVWriter struct {
	w      *bufio.Writer
	opt    Options
	schema *arrow.Schema
	header bool
	n      int64
}

// NewCSVWriter writes to w (the caller closes w after Close).
func NewCSVWriter(w io.Writer, schema *arrow.Schema, opt Options) (*CSVWriter, error) {
	opt.Format = CSV
	opt, err := opt.Resolve("")
	if err != nil {
		return nil, err
	}
	for _, f := range schema.Fields() {
		if err := checkWritable(f); err != nil {
			return nil, err
		}
	}
	return &CSVWriter{w: bufio.NewWriterSize(w, 64<<10), opt: opt, schema: schema, header: opt.Header}, nil
}

func checkWritable(f arrow.Field) error {
	switch f.Type.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.LARGE_STRING, arrow.BOOL, arrow.DATE32, arrow.DECIMAL128:
		return nil
	case arrow.TIMESTAMP:
		if t := f.Type.(*arrow.TimestampType); t.Unit == arrow.Microsecond && t.TimeZone == "" {
			return nil
		}
	}
	return fmt.Errorf("%w: column %q has type %s", ErrUnsupportedType, f.Name, f.Type)
}

// Rows is the number of rows written.
func (c *CSVWriter) Rows() int64 { return c.n }

// Write appends b's rows.
func (c *CSVWriter) Write(b arrow.RecordBatch) error {
	if c.header {
		c.header = false
		for i, f := range c.schema.Fields() {
			if i > 0 {
				c.w.WriteRune(c.opt.Delimiter)
			}
			c.field(f.Name)
		}
		c.lineEnd()
	}
	for r := 0; r < int(b.NumRows()); r++ {
		for i := 0; i < int(b.NumCols()); i++ {
			if i > 0 {
				c.w.WriteRune(c.opt.Delimiter)
			}
			col := b.Column(i)
			if col.IsNull(r) {
				c.w.WriteString(c.opt.Null)
				continue
			}
			c.field(text(col, r))
		}
		if err := c.lineEnd(); err != nil {
			return err
		}
	}
	c.n += b.NumRows()
	return nil
}

// lineEnd ends a line, after a trailing delimiter when the options ask
// for one (TPC-H's .tbl layout).
func (c *CSVWriter) lineEnd() error {
	if c.opt.TrailingDelimiter {
		c.w.WriteRune(c.opt.Delimiter)
	}
	return c.w.WriteByte('\n')
}

func (c *CSVWriter) field(s string) {
	if s == c.opt.Null || s == `\.` || strings.ContainsAny(s, "\"\r\n") || strings.ContainsRune(s, c.opt.Delimiter) {
		c.w.WriteByte('"')
		c.w.WriteString(strings.ReplaceAll(s, `"`, `""`))
		c.w.WriteByte('"')
		return
	}
	c.w.WriteString(s)
}

// Close flushes (and writes the header of an empty result).
func (c *CSVWriter) Close() error {
	if c.header {
		if err := c.Write(array.NewRecordBatch(c.schema, nil, 0)); err != nil {
			return err
		}
	}
	return c.w.Flush()
}

// text is a non-null value as PostgreSQL's output function writes it.
func text(col arrow.Array, r int) string {
	switch a := col.(type) {
	case *array.Float64:
		return value.FormatFloat(a.Value(r), 64)
	case *array.Float32:
		return value.FormatFloat(float64(a.Value(r)), 32)
	case *array.Boolean:
		if a.Value(r) {
			return "t"
		}
		return "f"
	case *array.Int64:
		return strconv.FormatInt(a.Value(r), 10)
	case *array.Uint64:
		return strconv.FormatUint(a.Value(r), 10)
	case *array.String:
		return a.Value(r)
	case *array.LargeString:
		return a.Value(r)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(r)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(r)), 10)
	case *array.Date32:
		return value.FormatDate(int32(a.Value(r)))
	case *array.Timestamp:
		return value.FormatTimestamp(int64(a.Value(r)))
	case *array.Decimal128:
		return value.FormatDecimal(a.Value(r), a.DataType().(*arrow.Decimal128Type).Scale)
	}
	return col.ValueStr(r)
}
