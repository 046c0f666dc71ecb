package plan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/stablerow/stablerow/fileio"
)

// readParquet plans read_parquet('file'): an extension-table read whose
// detail names the file (or, for a glob, the files it matched at plan
// time) and whose base_schema is the files' (engine types). The files are
// opened under Options.Files, so a Substrait plan from a client reaches no
// further than the SQL text could.
func (p *planner) readParquet(r *splan.ExtensionTableReadRel, f map[string]*structpb.Value) (*rel, error) {
	paths, err := detailFiles(f, "read_parquet")
	if err != nil {
		return nil, err
	}
	schema, names, err := baseSchema(r)
	if err != nil {
		return nil, err
	}
	return readOf(r, fileio.NewReadParquetExec(paths, schema, p.opt.Files), names)
}

// detailFiles is a file-reading extension's files: "files" (a glob's
// matches) or else "path" (one file).
func detailFiles(f map[string]*structpb.Value, fn string) ([]string, error) {
	var paths []string
	if l := f["files"].GetListValue(); l != nil {
		for _, v := range l.GetValues() {
			s, ok := v.GetKind().(*structpb.Value_StringValue)
			if !ok || s.StringValue == "" {
				return nil, fmt.Errorf("%w: %s files must be non-empty strings", ErrInvalidPlan, fn)
			}
			paths = append(paths, s.StringValue)
		}
	} else if path := f["path"].GetStringValue(); path != "" {
		paths = []string{path}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: %s without a path", ErrInvalidPlan, fn)
	}
	return paths, nil
}

// baseSchema is an extension read's base_schema as Arrow, with its names.
func baseSchema(r *splan.ExtensionTableReadRel) (*arrow.Schema, []string, error) {
	fields, err := baseArrow(r)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, len(fields))
	for i, fl := range fields {
		names[i] = fl.Name
	}
	return arrow.NewSchema(fields, nil), names, nil
}
