package fileio

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Format is a file format.
type Format string

const (
	CSV     Format = "csv"
	Parquet Format = "parquet"
)

// Options are COPY's WITH (...) options, PostgreSQL's spelling.
type Options struct {
	// Format: "" infers it from the file name's extension.
	Format Format
	// Header: CSV has a header line (read: skipped; write: written).
	Header bool
	// Delimiter separates CSV fields (0: ',').
	Delimiter rune
	// Null is the CSV text of NULL (PostgreSQL's default for CSV: an
	// unquoted empty field). A quoted field is never NULL.
	Null string
	// Quote opens and closes a quoted CSV field (0: '"'), unless NoQuote:
	// then no byte is special but the delimiter and the line end (the
	// sniffer's choice for a file whose data holds stray quotes).
	Quote   rune
	NoQuote bool
	// TrailingDelimiter: every CSV line ends with the delimiter, as TPC-H
	// dbgen's .tbl files do, so the empty field after it is not a column
	// (read: dropped when empty; write: written). DuckDB has no name for
	// it; stablerow's COPY spells it TRAILING_DELIMITER.
	TrailingDelimiter bool
	// SkipBlankLines skips a line with nothing on it instead of reading it
	// as one empty field (read_csv does, as DuckDB's reader does; COPY
	// does not, as PostgreSQL's does not).
	SkipBlankLines bool
	// DetectHeader (COPY's AUTO_DETECT, DuckDB's name) decides from the
	// first line whether it is a header, against the target's columns: a
	// header when one of its fields does not read as its column's type,
	// or, when every column is text, when its fields are the column names.
	// A first line with one field more than there are columns, the last
	// empty, sets TrailingDelimiter.
	DetectHeader bool
}

// Resolve fills the format from the name's extension and checks the
// options against it.
func (o Options) Resolve(name string) (Options, error) {
	if o.Format == "" {
		switch strings.ToLower(filepath.Ext(name)) {
		case ".parquet", ".pq":
			o.Format = Parquet
		case ".csv", ".tsv", ".tbl":
			o.Format = CSV
		default:
			return o, fmt.Errorf("%w: cannot infer the format of %q from its extension: say WITH (FORMAT csv|parquet)", ErrOption, name)
		}
	}
	switch o.Format {
	case CSV:
		if o.Delimiter == 0 {
			o.Delimiter = ','
		}
		if o.Quote == 0 {
			o.Quote = '"'
		}
		if o.Quote == '\n' || o.Quote == '\r' || o.Quote >= utf8.RuneSelf {
			return o, fmt.Errorf("%w: COPY quote must be a single one-byte character other than newline", ErrOption)
		}
		if (o.Delimiter == o.Quote && !o.NoQuote) || o.Delimiter == '\n' || o.Delimiter == '\r' || o.Delimiter >= utf8.RuneSelf {
			return o, fmt.Errorf("%w: COPY delimiter must be a single one-byte character other than quote and newline", ErrOption)
		}
		if strings.ContainsAny(o.Null, "\r\n") {
			return o, fmt.Errorf("%w: COPY null representation cannot use newline or carriage return", ErrOption)
		}
		if !o.NoQuote && strings.ContainsRune(o.Null, o.Quote) {
			return o, fmt.Errorf("%w: CSV quote character must not appear in the NULL specification", ErrOption)
		}
		if strings.ContainsRune(o.Null, o.Delimiter) {
			return o, fmt.Errorf("%w: COPY delimiter must not appear in the NULL specification", ErrOption)
		}
	case Parquet:
		if o.Header || o.Delimiter != 0 || o.Null != "" || o.Quote != 0 || o.NoQuote || o.TrailingDelimiter || o.DetectHeader {
			return o, fmt.Errorf("%w: HEADER, DELIMITER, NULL, QUOTE, TRAILING_DELIMITER and AUTO_DETECT apply to CSV only", ErrOption)
		}
	default:
		return o, fmt.Errorf("%w: COPY format %q not recognized (csv or parquet)", ErrOption, o.Format)
	}
	return o, nil
}
