package engine

import (
	"fmt"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/table"
)

// ScanWhere is Scan that skips the data file batches whose zone maps
// prove no row satisfies one of preds (plan.ZoneScanner). An old
// blank-padded char(n) column's zone map bounds its trimmed values, the
// form stripPaddedChars hands the filter above, so its predicates apply
// as they do to any string column.
func (p *provider) ScanWhere(columns []int, preds []table.ZonePred) (exec.Node, error) {
	names := make([]string, len(columns))
	for i, c := range columns {
		if c < 0 || c >= p.t.Schema().NumFields() {
			return nil, fmt.Errorf("engine: scan column %d of %d", c, p.t.Schema().NumFields())
		}
		names[i] = p.t.Schema().Field(c).Name
	}
	scan, err := exec.NewScanExec(p.t, names, nil)
	if err != nil {
		return nil, err
	}
	return stripPaddedChars(scan.WithWhere(preds), p.t.Schema(), columns)
}
