package plan

import (
	"fmt"
	"unicode/utf8"

	splan "github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/stablerow/stablerow/fileio"
)

// readCSV plans read_csv('file'): an extension-table read whose detail
// names the files and the dialect the sniffer chose at plan time
// (delimiter, quote, header, trailing_delimiter, null) and whose
// base_schema is the columns. As read_parquet's, the files open under
// Options.Files.
func (p *planner) readCSV(r *splan.ExtensionTableReadRel, f map[string]*structpb.Value) (*rel, error) {
	paths, err := detailFiles(f, "read_csv")
	if err != nil {
		return nil, err
	}
	schema, names, err := baseSchema(r)
	if err != nil {
		return nil, err
	}
	opt := fileio.Options{
		Format:            fileio.CSV,
		Header:            f["header"].GetBoolValue(),
		TrailingDelimiter: f["trailing_delimiter"].GetBoolValue(),
		Null:              f["null"].GetStringValue(),
		SkipBlankLines:    true,
	}
	delim := f["delimiter"].GetStringValue()
	if utf8.RuneCountInString(delim) != 1 {
		return nil, fmt.Errorf("%w: read_csv delimiter %q is not one character", ErrInvalidPlan, delim)
	}
	opt.Delimiter, _ = utf8.DecodeRuneInString(delim)
	switch q := f["quote"].GetStringValue(); utf8.RuneCountInString(q) {
	case 0:
		opt.NoQuote = true
	case 1:
		opt.Quote, _ = utf8.DecodeRuneInString(q)
	default:
		return nil, fmt.Errorf("%w: read_csv quote %q is not one character", ErrInvalidPlan, q)
	}
	if opt, err = opt.Resolve(""); err != nil {
		return nil, fmt.Errorf("%w: read_csv: %w", ErrInvalidPlan, err)
	}
	return readOf(r, fileio.NewReadCSVExec(paths, schema, opt, p.opt.Files), names)
}
