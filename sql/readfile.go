package sql

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"

	"github.com/stablerow/stablerow/fileio"
)

// FileCatalog is a Catalog that can read files under its file policy,
// which read_parquet and read_csv in FROM need at plan time: a glob's
// matches (every one checked by the policy), a Parquet footer's schema,
// the CSV sniffer's answer.
type FileCatalog interface {
	// ParquetFiles returns the files pattern names (a glob's matches, or
	// the one file) and their schema; the files must agree on it.
	ParquetFiles(pattern string) ([]string, *arrow.Schema, error)
	// CSVFiles returns the files pattern names and the sniffer's answer
	// for the first, which the others must agree with (fileio.CSVSniff).
	CSVFiles(pattern string, h fileio.SniffHints) ([]string, *fileio.CSVSniff, error)
}

const (
	relReadParquet = "stablerow.read_parquet"
	relReadCSV     = "stablerow.read_csv"
)

// fileCatalog is the catalog's FileCatalog, or an error naming fn.
func (l *lowerer) fileCatalog(fn string, loc int32) (FileCatalog, error) {
	fcat, ok := l.cat.(FileCatalog)
	if !ok {
		return nil, fmt.Errorf("%w: %s: this catalog reads no files%s", ErrUnsupported, fn, l.src.at(loc))
	}
	return fcat, nil
}

// fileArg is a file-reading function's first argument: the file name or
// glob, a string constant. The rest are named options (name := value).
func (l *lowerer) fileArg(fc *pg_query.FuncCall, fn string, rf *pg_query.RangeFunction) (string, error) {
	if rf.Ordinality {
		return "", fmt.Errorf("%w: %s WITH ORDINALITY%s", ErrUnsupported, fn, l.src.at(fc.Location))
	}
	var path string
	if len(fc.Args) > 0 {
		if c := fc.Args[0].GetAConst(); c != nil && c.GetSval() != nil {
			path = c.GetSval().Sval
		}
	}
	if path == "" {
		return "", fmt.Errorf("%w: %s takes a file name or glob, a string constant, first%s", ErrInvalid, fn, l.src.at(fc.Location))
	}
	return path, nil
}

// readParquet lowers read_parquet('file' | 'glob') in FROM to an
// extension-table read naming the files, its base_schema read from their
// footers now.
func (l *lowerer) readParquet(fc *pg_query.FuncCall, rf *pg_query.RangeFunction) (plan.Rel, *scope, error) {
	path, err := l.fileArg(fc, "read_parquet", rf)
	if err != nil {
		return nil, nil, err
	}
	if len(fc.Args) > 1 {
		return nil, nil, fmt.Errorf("%w: read_parquet takes no options%s", ErrUnsupported, l.src.at(fc.Location))
	}
	fcat, err := l.fileCatalog("read_parquet", fc.Location)
	if err != nil {
		return nil, nil, err
	}
	files, sch, err := fcat.ParquetFiles(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read_parquet(%q)%s: %w", path, l.src.at(fc.Location), err)
	}
	return l.fileRead("read_parquet", path, rf, sch, map[string]any{"relation": relReadParquet}, files)
}

// readCSV lowers read_csv('file' | 'glob' [, option := value ...]) (and
// read_csv_auto, its DuckDB alias) to an extension-table read naming the
// files and the dialect the sniffer chose now; the options fix what they
// name instead of detecting it (DuckDB's names): header, delim (sep,
// delimiter), quote (” for none), trailing_delimiter, nullstr (null),
// names (column_names), types (column_types), all_varchar, sample_size.
func (l *lowerer) readCSV(fc *pg_query.FuncCall, rf *pg_query.RangeFunction, fn string) (plan.Rel, *scope, error) {
	path, err := l.fileArg(fc, fn, rf)
	if err != nil {
		return nil, nil, err
	}
	h, allText, err := l.csvHints(fc.Args[1:], fn, fc.Location)
	if err != nil {
		return nil, nil, err
	}
	fcat, err := l.fileCatalog(fn, fc.Location)
	if err != nil {
		return nil, nil, err
	}
	files, sn, err := fcat.CSVFiles(path, h)
	if err != nil {
		return nil, nil, fmt.Errorf("%s(%q)%s: %w", fn, path, l.src.at(fc.Location), err)
	}
	if allText {
		for i := range sn.Types {
			sn.Types[i] = arrow.BinaryTypes.String
		}
	}
	o := sn.Options
	quote := ""
	if !o.NoQuote {
		quote = string(o.Quote)
	}
	detail := map[string]any{
		"relation": relReadCSV, "delimiter": string(o.Delimiter), "quote": quote,
		"header": o.Header, "trailing_delimiter": o.TrailingDelimiter, "null": o.Null,
	}
	return l.fileRead(fn, path, rf, sn.Schema(), detail, files)
}

// fileRead is the extension-table read of files with schema sch, named
// by the alias (with its column names) or else fn.
func (l *lowerer) fileRead(fn, path string, rf *pg_query.RangeFunction, sch *arrow.Schema, detail map[string]any, files []string) (plan.Rel, *scope, error) {
	qual := fn
	names := make([]string, sch.NumFields())
	for i, f := range sch.Fields() {
		names[i] = f.Name
	}
	if a := rf.Alias; a != nil {
		qual = a.Aliasname
		if len(a.Colnames) > len(names) {
			return nil, nil, fmt.Errorf("%w: %q has %d columns available but %d columns specified", ErrInvalid, qual, len(names), len(a.Colnames))
		}
		for i, c := range a.Colnames {
			names[i] = c.GetString_().GetSval()
		}
	}
	ts := make([]types.Type, sch.NumFields())
	cols := make([]column, sch.NumFields())
	for i, f := range sch.Fields() {
		k := parquetKind(f.Type)
		if k == kindUnknown {
			return nil, nil, fmt.Errorf("%w: %s(%q): column %q has type %s", ErrUnsupported, fn, path, f.Name, f.Type)
		}
		ts[i] = k.Type(true)
		cols[i] = column{qual: qual, name: names[i], typ: ts[i]}
	}
	if len(files) == 1 {
		detail["path"] = files[0]
	} else {
		list := make([]any, len(files))
		for i, f := range files {
			list[i] = f
		}
		detail["files"] = list
	}
	rel, err := l.extensionTable(detail, names, ts)
	return rel, &scope{cols: cols}, err
}

// parquetKind is the SQL kind of a file column as fileio's readers hand
// it over (fileio.EngineType: smallint, integer, bigint, real, double
// precision, numeric(p, s), date, timestamp, text, boolean); other types
// are refused by name.
func parquetKind(dt arrow.DataType) kind {
	if dt.ID() == arrow.LARGE_STRING {
		return kindString
	}
	return fieldKind(arrow.Field{Type: dt})
}

// csvTypeNames are the type names read_csv's types option takes:
// PostgreSQL's and DuckDB's spellings of the types a CSV column can have.
var csvTypeNames = map[string]arrow.DataType{
	"bigint": arrow.PrimitiveTypes.Int64, "int8": arrow.PrimitiveTypes.Int64,
	"integer": arrow.PrimitiveTypes.Int32, "int": arrow.PrimitiveTypes.Int32, "int4": arrow.PrimitiveTypes.Int32,
	"smallint": arrow.PrimitiveTypes.Int16, "int2": arrow.PrimitiveTypes.Int16,
	"double": arrow.PrimitiveTypes.Float64, "double precision": arrow.PrimitiveTypes.Float64, "float8": arrow.PrimitiveTypes.Float64,
	"real": arrow.PrimitiveTypes.Float32, "float4": arrow.PrimitiveTypes.Float32,
	"boolean": arrow.FixedWidthTypes.Boolean, "bool": arrow.FixedWidthTypes.Boolean,
	"date":      arrow.FixedWidthTypes.Date32,
	"timestamp": &arrow.TimestampType{Unit: arrow.Microsecond},
	"text":      arrow.BinaryTypes.String, "varchar": arrow.BinaryTypes.String,
}

// csvHints reads read_csv's named options.
func (l *lowerer) csvHints(args []*pg_query.Node, fn string, loc int32) (h fileio.SniffHints, allText bool, err error) {
	seen := map[string]bool{}
	for _, a := range args {
		na := a.GetNamedArgExpr()
		if na == nil {
			return h, false, fmt.Errorf("%w: %s takes one file name, then options as name := value%s", ErrInvalid, fn, l.src.at(loc))
		}
		name := strings.ToLower(na.Name)
		at := l.src.at(na.Location)
		bad := func(want string) error {
			return fmt.Errorf("%w: %s option %s must be %s%s", ErrInvalid, fn, name, want, at)
		}
		canon := map[string]string{"sep": "delim", "delimiter": "delim", "null": "nullstr", "column_names": "names", "column_types": "types"}[name]
		if canon == "" {
			canon = name
		}
		if seen[canon] {
			return h, false, fmt.Errorf("%w: %s option %s given twice%s", ErrInvalid, fn, name, at)
		}
		seen[canon] = true
		c := na.Arg.GetAConst()
		switch canon {
		case "header", "trailing_delimiter", "all_varchar":
			b, ok := constBool(c)
			if !ok {
				return h, false, bad("true or false")
			}
			switch canon {
			case "header":
				h.Options.Header, h.HeaderSet = b, true
			case "trailing_delimiter":
				h.Options.TrailingDelimiter, h.TrailSet = b, true
			default:
				allText = b
			}
		case "delim", "quote":
			if c == nil || c.GetSval() == nil {
				return h, false, bad("a string")
			}
			s := c.GetSval().Sval
			if s == `\t` { // DuckDB reads '\t' as a tab
				s = "\t"
			}
			if canon == "quote" && s == "" {
				h.Options.NoQuote, h.QuoteSet = true, true
				continue
			}
			r, size := utf8.DecodeRuneInString(s)
			if size != len(s) || r >= utf8.RuneSelf || r == '\n' || r == '\r' {
				return h, false, bad("a single one-byte character other than newline")
			}
			if canon == "delim" {
				h.Options.Delimiter, h.DelimiterSet = r, true
			} else {
				h.Options.Quote, h.QuoteSet = r, true
			}
		case "nullstr":
			if c == nil || c.GetSval() == nil {
				return h, false, bad("a string")
			}
			h.Options.Null = c.GetSval().Sval
		case "sample_size":
			if c == nil || c.GetIval() == nil || c.GetIval().Ival < 1 {
				return h, false, bad("a positive integer")
			}
			h.SampleRows = int(c.GetIval().Ival)
		case "names", "types":
			items := na.Arg.GetAArrayExpr().GetElements()
			if len(items) == 0 {
				return h, false, bad("an ARRAY of strings")
			}
			for _, it := range items {
				ic := it.GetAConst()
				if ic == nil || ic.GetSval() == nil {
					return h, false, bad("an ARRAY of strings")
				}
				s := ic.GetSval().Sval
				if canon == "names" {
					h.Names = append(h.Names, s)
					continue
				}
				t, ok := csvTypeNames[strings.ToLower(strings.TrimSpace(s))]
				if !ok {
					return h, false, fmt.Errorf("%w: %s: type %q (read_csv reads bigint, integer, smallint, double, real, boolean, date, timestamp, text)%s", ErrUnsupported, fn, s, at)
				}
				h.Types = append(h.Types, t)
			}
		default:
			return h, false, fmt.Errorf("%w: %s option %q%s", ErrUnsupported, fn, na.Name, at)
		}
	}
	return h, allText, nil
}

// constBool reads a boolean option's constant: true/false, or the
// strings and integers PostgreSQL's boolin takes.
func constBool(c *pg_query.A_Const) (bool, bool) {
	switch {
	case c == nil:
		return false, false
	case c.GetBoolval() != nil:
		return c.GetBoolval().Boolval, true
	case c.GetSval() != nil:
		return parseBool(c.GetSval().Sval, true)
	case c.GetIval() != nil:
		switch c.GetIval().Ival {
		case 0:
			return false, true
		case 1:
			return true, true
		}
	}
	return false, false
}
