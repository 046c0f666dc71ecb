package plan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/stablerow/stablerow/fileio"
)

// readParquet plans read_parquet('file'): an extension-table read whose
// detail names the file and whose base_schema is the file's (engine
// types). The file is opened under Options.Files, so a Substrait plan
// from a client reaches no further than the SQL text could.
func (p *planner) readParquet(r *splan.ExtensionTableReadRel, f map[string]*structpb.Value) (*rel, error) {
	path := f["path"].GetStringValue()
	if path == "" {
		return nil, fmt.Errorf("%w: read_parquet without a path", ErrInvalidPlan)
	}
	fields, err := baseArrow(r)
	if err != nil {
		return nil, err
	}
	schema := arrow.NewSchema(fields, nil)
	names := make([]string, len(fields))
	for i, fl := range fields {
		names[i] = fl.Name
	}
	return readOf(r, fileio.NewReadParquetExec(path, schema, p.opt.Files), names)
}
