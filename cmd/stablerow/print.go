package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/value"
)

// widthSample is how many rows fix the column widths before any row is
// printed; later rows print as they arrive (a longer value widens only
// its own line), so a result of any size streams in bounded memory.
const widthSample = 1000

// printRows writes a statement's rows while they stream, in opt.format:
// the header comes from the schema, then rows as the batches arrive, at
// most opt.maxRows of them (0: all); the rest are counted and the cut is
// said on the status writer (see sqlOptions). A statement without a result
// set prints what it did. It returns the error that ended the stream, if
// any, after printing what came before it.
func printRows(w io.Writer, rows *engine.Rows, opt sqlOptions) error {
	status := opt.statusTo(w)
	schema := rows.Schema()
	if schema == nil || schema.NumFields() == 0 {
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			return err
		}
		// What psql prints: the command tag ("CREATE TABLE", "INSERT 0 3"),
		// or for maintenance statements a line that says what they made.
		switch {
		case rows.Summary() != "":
			fmt.Fprintln(status, rows.Summary())
		case rows.Tag() != "":
			fmt.Fprintln(status, rows.Tag())
		default:
			fmt.Fprintf(status, "ok (%d rows affected)\n", rows.RowsAffected())
		}
		return nil
	}
	sink, err := newRowSink(opt.format, w, schema)
	if err != nil {
		return err
	}
	maxRows := int64(max(opt.maxRows, 0))
	var shown, total int64
	for rows.Next() {
		b := rows.Batch()
		n := b.NumRows()
		show := n
		if maxRows > 0 {
			show = min(n, max(maxRows-shown, 0))
		}
		if bs, ok := sink.(batchSink); ok {
			if show > 0 {
				bs.batch(b, int(show))
			}
		} else {
			for r := range int(show) {
				sink.row(b, r)
			}
		}
		shown += show
		total += n
	}
	if err := rows.Err(); err != nil {
		// The rows before the error are printed, but no count; a result
		// that failed before its first row prints nothing (not an empty
		// table that reads as "no rows").
		if shown > 0 {
			sink.finish()
		}
		return err
	}
	if err := sink.finish(); err != nil {
		return err
	}
	if total > shown {
		fmt.Fprintf(status, "... %d more rows not shown (-max-rows 0 shows all)\n", total-shown)
	}
	fmt.Fprintln(status, rowCount(total))
	return nil
}

// rowCount is psql's footer: "(1 row)", "(0 rows)", "(12 rows)".
func rowCount(n int64) string {
	if n == 1 {
		return "(1 row)"
	}
	return fmt.Sprintf("(%d rows)", n)
}

// tablePrinter is the state of one printed table:
//
//	sampling (rows kept to fix widths) --sample full or finish--> streaming
//	streaming (each row printed as it comes)
type tablePrinter struct {
	w       io.Writer
	head    []string
	width   []int
	sample  [][]string // rows held until the widths are fixed
	started bool       // header printed, widths fixed
}

func newTablePrinter(w io.Writer, schema *arrow.Schema) *tablePrinter {
	tp := &tablePrinter{w: w}
	for _, f := range schema.Fields() {
		tp.head = append(tp.head, f.Name)
		tp.width = append(tp.width, utf8.RuneCountInString(f.Name))
	}
	return tp
}

func (tp *tablePrinter) row(b arrow.RecordBatch, r int) {
	vals := make([]string, b.NumCols())
	for c := range vals {
		vals[c] = cell(b.Column(c), r)
	}
	tp.add(vals)
}

func (tp *tablePrinter) add(row []string) {
	if tp.started {
		tp.line(row)
		return
	}
	tp.sample = append(tp.sample, row)
	for i, v := range row {
		tp.width[i] = max(tp.width[i], utf8.RuneCountInString(v))
	}
	if len(tp.sample) >= widthSample {
		tp.start()
	}
}

// start prints the header and the sampled rows; widths are fixed from here.
func (tp *tablePrinter) start() {
	tp.started = true
	tp.line(tp.head)
	sep := make([]string, len(tp.head))
	for i := range sep {
		sep[i] = strings.Repeat("-", tp.width[i])
	}
	fmt.Fprintln(tp.w, "-"+strings.Join(sep, "-+-")+"-")
	for _, r := range tp.sample {
		tp.line(r)
	}
	tp.sample = nil
}

func (tp *tablePrinter) line(vals []string) {
	var sb strings.Builder
	sb.WriteByte(' ')
	for i, v := range vals {
		if i > 0 {
			sb.WriteString(" | ")
		}
		sb.WriteString(v)
		sb.WriteString(strings.Repeat(" ", max(tp.width[i]-utf8.RuneCountInString(v), 0)))
	}
	fmt.Fprintln(tp.w, sb.String())
}

// finish prints what is still held (the header at least).
func (tp *tablePrinter) finish() error {
	if !tp.started {
		tp.start()
	}
	return nil
}

// cell is one value as text: NULL, floats, dates, timestamps and decimals
// as PostgreSQL prints them (value.FormatValue), anything else as Arrow's
// ValueStr.
func cell(col arrow.Array, r int) string {
	if col.IsNull(r) {
		return "NULL"
	}
	if v, ok := value.FormatValue(col, r); ok {
		return v
	}
	return col.ValueStr(r)
}
