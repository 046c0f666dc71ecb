package fileio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/value"
)

// The CSV sniffer: read_csv's detection of a file's dialect, header and
// column types from a sample of its first rows, as DuckDB's sniffer does
// (https://duckdb.org/docs/data/csv/auto_detection): the dialect (a
// delimiter of , | ; or tab, a quote of " or ' or none) whose sample rows
// agree on the most columns wins; the first row is a header when one of
// its fields does not fit the type the other rows give its column, or when
// every column is text (then a header cannot be told from data, and
// DuckDB assumes one); each column's type is the first of boolean,
// bigint, double precision, date and text that every sampled value parses
// as. A later row that does not fit is the reader's typed error, naming
// the line and column: the sample decides, the reader checks.

// SniffHints are what the caller fixed; everything else is detected.
type SniffHints struct {
	// Options holds the fixed values of the fields the flags below mark
	// (Null is always used: "" by default).
	Options                                     Options
	HeaderSet, DelimiterSet, QuoteSet, TrailSet bool
	// SampleRows bounds the rows read for detection (0: DefaultSampleRows).
	SampleRows int
	// Names and Types, when set, replace the detected names and types
	// (DuckDB's names and types options); each must have one entry per
	// column.
	Names []string
	Types []arrow.DataType
}

// DefaultSampleRows is DuckDB's sample_size default.
const DefaultSampleRows = 20480

// maxSampleBytes bounds the sample's bytes too, so a file of a few huge
// lines (or none) is not read whole at plan time.
const maxSampleBytes = 8 << 20

// CSVSniff is the sniffer's answer: the options to read the file with
// (Format CSV, resolved) and its columns.
type CSVSniff struct {
	Options Options
	Names   []string
	Types   []arrow.DataType
	// header is the header line's fields as written (before naming empty
	// or repeated ones), to compare other files of a glob with.
	header []string
}

// Schema is the sniffed columns as an Arrow schema (every column nullable).
func (s *CSVSniff) Schema() *arrow.Schema {
	fs := make([]arrow.Field, len(s.Names))
	for i := range fs {
		fs[i] = arrow.Field{Name: s.Names[i], Type: s.Types[i], Nullable: true}
	}
	return arrow.NewSchema(fs, nil)
}

// dialect is one candidate: a delimiter and a quote (0: none).
type dialect struct{ delim, quote byte }

var (
	sniffDelims = []byte{',', '|', ';', '\t'}
	sniffQuotes = []byte{'"', '\'', 0}
)

// sampled is a candidate dialect's reading of the sample.
type sampled struct {
	d        dialect
	rows     [][]csvField
	trailing bool
	cols     int  // columns (after a trailing delimiter's empty field)
	agree    int  // rows with cols fields
	ok       bool // every row has cols fields
}

// SniffCSV detects r's dialect, header and column types from its first
// rows (see the comment at the top of this file). name is the file's name
// for errors.
func SniffCSV(r io.Reader, name string, h SniffHints) (*CSVSniff, error) {
	rows := h.SampleRows
	if rows <= 0 {
		rows = DefaultSampleRows
	}
	sample, cut, err := readSample(r, rows)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	best, err := pickDialect(sample, cut, rows, h)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrFormat, name, err)
	}
	opt := h.Options
	opt.Format = CSV
	opt.Delimiter = rune(best.d.delim)
	opt.Quote, opt.NoQuote = rune(best.d.quote), best.d.quote == 0
	if opt.NoQuote {
		opt.Quote = 0
	}
	opt.TrailingDelimiter = best.trailing
	opt.SkipBlankLines = true
	if opt, err = opt.Resolve(""); err != nil {
		return nil, err
	}
	data := best.rows
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: %s: the file is empty: there are no columns to read (name them with names := and types :=)", ErrFormat, name)
	}
	if len(h.Names) > 0 && len(h.Names) != best.cols {
		return nil, fmt.Errorf("%w: %s has %d columns but %d names were given", ErrOption, name, best.cols, len(h.Names))
	}
	if len(h.Types) > 0 && len(h.Types) != best.cols {
		return nil, fmt.Errorf("%w: %s has %d columns but %d types were given", ErrOption, name, best.cols, len(h.Types))
	}
	without := columnTypes(data[1:], best.cols, opt.Null)
	if len(h.Types) > 0 {
		without = h.Types
	}
	header := h.Options.Header
	if !h.HeaderSet {
		header = isHeader(data, without, opt.Null)
	}
	s := &CSVSniff{Options: opt}
	s.Options.Header = header
	if header {
		s.header = fieldTexts(data[0], best.cols)
		s.Names = columnNames(s.header)
		s.Types = without
	} else {
		s.Names = columnNames(make([]string, best.cols))
		s.Types = columnTypes(data, best.cols, opt.Null)
	}
	if len(h.Names) > 0 {
		s.Names = h.Names
	}
	if len(h.Types) > 0 {
		s.Types = h.Types
	}
	return s, nil
}

// readSample reads up to rows lines (or maxSampleBytes, cut at a line
// end); cut reports that the file goes on after it.
func readSample(r io.Reader, rows int) (sample []byte, cut bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf bytes.Buffer
	for n := 0; n < rows && buf.Len() < maxSampleBytes; n++ {
		line, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) && buf.Len()+len(line) < maxSampleBytes {
			buf.Write(line)
			line, err = br.ReadSlice('\n')
		}
		buf.Write(line)
		if err == io.EOF {
			return buf.Bytes(), false, nil
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, false, err
		}
	}
	_, err = br.Peek(1)
	return buf.Bytes(), err == nil, nil
}

// pickDialect reads the sample with each candidate dialect the hints
// allow and keeps the best: one whose rows all agree before one whose do
// not, then the most columns, then the most agreeing rows, then the
// earlier candidate (',' before '|' before ';' before tab, '"' before '\”
// before none).
func pickDialect(sample []byte, cut bool, maxRows int, h SniffHints) (*sampled, error) {
	delims, quotes := sniffDelims, sniffQuotes
	if h.DelimiterSet {
		delims = []byte{byte(h.Options.Delimiter)}
	}
	if h.QuoteSet {
		quotes = []byte{h.Options.quoteByte()}
	}
	var best *sampled
	var firstErr error
	for _, q := range quotes {
		for _, d := range delims {
			if d == q {
				continue
			}
			c, err := readCandidate(sample, cut, maxRows, dialect{d, q}, h)
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			if best == nil || better(c, best) {
				best = c
			}
		}
	}
	if best == nil {
		return nil, firstErr
	}
	return best, nil
}

func better(a, b *sampled) bool {
	if a.ok != b.ok {
		return a.ok
	}
	if a.cols != b.cols {
		return a.cols > b.cols
	}
	return a.agree > b.agree
}

// readCandidate tokenizes the sample with d. A tokenizer error rules the
// dialect out, unless it is in the last record of a sample cut short
// (that record may be cut in a quoted field).
func readCandidate(sample []byte, cut bool, maxRows int, d dialect, h SniffHints) (*sampled, error) {
	br := bytes.NewReader(sample)
	t := newCSVTokenizer(br, d.delim, d.quote)
	c := &sampled{d: d}
	for len(c.rows) < maxRows {
		rec, _, err := t.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if cut && br.Len() == 0 && t.r.Buffered() == 0 {
				break
			}
			return nil, err
		}
		if blank(rec) {
			continue
		}
		c.rows = append(c.rows, append([]csvField(nil), rec...))
	}
	if cut && len(c.rows) > 1 {
		c.rows = c.rows[:len(c.rows)-1] // the last line may be cut short
	}
	c.trailing = h.Options.TrailingDelimiter
	if !h.TrailSet {
		c.trailing = len(c.rows) > 0
		for _, r := range c.rows {
			if n := len(r); n < 2 || r[n-1].quoted || r[n-1].text != "" {
				c.trailing = false
				break
			}
		}
	}
	counts := map[int]int{}
	for i, r := range c.rows {
		if c.trailing {
			r = dropTrailing(r)
			c.rows[i] = r
		}
		counts[len(r)]++
	}
	if len(c.rows) > 0 {
		// The first row's count: a header names every column.
		c.cols = len(c.rows[0])
		c.agree = counts[c.cols]
		c.ok = c.agree == len(c.rows)
	}
	return c, nil
}

// sniffType is a detected column type, in the order tried.
type sniffType int

const (
	sniffBool sniffType = iota
	sniffBigint
	sniffDouble
	sniffDate
	sniffText
)

var sniffArrow = [...]arrow.DataType{
	sniffBool:   arrow.FixedWidthTypes.Boolean,
	sniffBigint: arrow.PrimitiveTypes.Int64,
	sniffDouble: arrow.PrimitiveTypes.Float64,
	sniffDate:   arrow.FixedWidthTypes.Date32,
	sniffText:   arrow.BinaryTypes.String,
}

// fitsAs reports whether s reads as t with the reader's own parsing
// (appendText), stricter where detection must be: a boolean is true or
// false (not PostgreSQL's 1, t, yes), a date is ISO's YYYY-MM-DD.
func fitsAs(s string, t sniffType) bool {
	switch t {
	case sniffBool:
		v := strings.ToLower(strings.TrimSpace(s))
		return v == "true" || v == "false"
	case sniffBigint:
		_, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		return err == nil
	case sniffDouble:
		_, err := parseFloat8(s)
		return err == nil
	case sniffDate:
		t := strings.TrimSpace(s)
		if len(t) != 10 || t[4] != '-' || t[7] != '-' {
			return false
		}
		_, err := value.ParseDate(t)
		return err == nil
	}
	return true
}

// columnTypes is, per column, the first type every non-null value of rows
// fits (text when a column has no value).
func columnTypes(rows [][]csvField, cols int, null string) []arrow.DataType {
	out := make([]arrow.DataType, cols)
	for c := 0; c < cols; c++ {
		viable := [sniffText]bool{true, true, true, true}
		seen := false
		for _, r := range rows {
			if c >= len(r) || (!r[c].quoted && r[c].text == null) {
				continue
			}
			seen = true
			for t := sniffBool; t < sniffText; t++ {
				if viable[t] && !fitsAs(r[c].text, t) {
					viable[t] = false
				}
			}
		}
		t := sniffText
		if seen {
			for k := sniffBool; k < sniffText; k++ {
				if viable[k] {
					t = k
					break
				}
			}
		}
		out[c] = sniffArrow[t]
	}
	return out
}

// isHeader decides whether the first row names the columns: a field of
// it that does not fit the type the rows after it give its column, or,
// when every column is text, always (DuckDB's rule: the header cannot be
// told from the data then, and a header is the common case). A file of
// one row has no rows to compare with: it is data.
func isHeader(rows [][]csvField, without []arrow.DataType, null string) bool {
	if len(rows) < 2 {
		return false
	}
	allText := true
	for c, t := range without {
		if t.ID() == arrow.STRING {
			continue
		}
		allText = false
		if c < len(rows[0]) {
			f := rows[0][c]
			if f.quoted || f.text != null {
				if !fitsAs(f.text, sniffOf(t)) {
					return true
				}
			}
		}
	}
	return allText
}

func sniffOf(t arrow.DataType) sniffType {
	for k, a := range sniffArrow {
		if arrow.TypeEqual(a, t) {
			return sniffType(k)
		}
	}
	return sniffText
}

// fieldTexts is a record's first cols fields' text.
func fieldTexts(rec []csvField, cols int) []string {
	out := make([]string, cols)
	for i := 0; i < cols && i < len(rec); i++ {
		out[i] = rec[i].text
	}
	return out
}

// columnNames names the columns from header fields as DuckDB does: an
// empty name is column<i> (from 0), a repeated one gets _1, _2, ...
func columnNames(header []string) []string {
	out := make([]string, len(header))
	used := map[string]bool{}
	for i, h := range header {
		n := strings.TrimSpace(h)
		if n == "" {
			n = "column" + strconv.Itoa(i)
		}
		base := n
		for k := 1; used[n]; k++ {
			n = base + "_" + strconv.Itoa(k)
		}
		used[n] = true
		out[i] = n
	}
	return out
}

// Agrees checks that another file of the same glob has the sniffed
// file's shape: the same header line (names, in order) when there is a
// header, else the same number of fields in its first row. Column types
// are the reader's to check, row by row.
func (s *CSVSniff) Agrees(r io.Reader, name, first string) error {
	t := newCSVTokenizer(r, byte(s.Options.Delimiter), s.Options.quoteByte())
	var rec []csvField
	for {
		var err error
		rec, _, err = t.next()
		if errors.Is(err, io.EOF) {
			return nil // an empty file adds no rows
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if !blank(rec) {
			break
		}
	}
	if s.Options.TrailingDelimiter {
		rec = dropTrailing(rec)
	}
	if len(rec) != len(s.Names) {
		return fmt.Errorf("%w: %s has %d columns but %s has %d (the files of one glob must have the same columns)", ErrSchema, name, len(rec), first, len(s.Names))
	}
	if s.Options.Header {
		for i, f := range rec {
			if f.text != s.header[i] {
				return fmt.Errorf("%w: %s names column %d %q but %s names it %q (the files of one glob must have the same columns)", ErrSchema, name, i+1, f.text, first, s.header[i])
			}
		}
	}
	return nil
}
