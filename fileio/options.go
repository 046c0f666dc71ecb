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
}

// Resolve fills the format from the name's extension and checks the
// options against it.
func (o Options) Resolve(name string) (Options, error) {
	if o.Format == "" {
		switch strings.ToLower(filepath.Ext(name)) {
		case ".parquet", ".pq":
			o.Format = Parquet
		case ".csv":
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
		if o.Delimiter == '"' || o.Delimiter == '\n' || o.Delimiter == '\r' || o.Delimiter >= utf8.RuneSelf {
			return o, fmt.Errorf("%w: COPY delimiter must be a single one-byte character other than quote and newline", ErrOption)
		}
		if strings.ContainsAny(o.Null, "\r\n") {
			return o, fmt.Errorf("%w: COPY null representation cannot use newline or carriage return", ErrOption)
		}
		if strings.Contains(o.Null, `"`) {
			return o, fmt.Errorf("%w: CSV quote character must not appear in the NULL specification", ErrOption)
		}
		if strings.ContainsRune(o.Null, o.Delimiter) {
			return o, fmt.Errorf("%w: COPY delimiter must not appear in the NULL specification", ErrOption)
		}
	case Parquet:
		if o.Header || o.Delimiter != 0 || o.Null != "" {
			return o, fmt.Errorf("%w: HEADER, DELIMITER and NULL apply to CSV only", ErrOption)
		}
	default:
		return o, fmt.Errorf("%w: COPY format %q not recognized (csv or parquet)", ErrOption, o.Format)
	}
	return o, nil
}
