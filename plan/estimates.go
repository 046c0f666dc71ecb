package plan

import (
	splan "github.com/substrait-io/substrait-go/v8/plan"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan/optimize"
)

// noteEstimate records the optimizer's row estimate of r as n's, when
// the caller asked for estimates (Options.Estimates: EXPLAIN (COSTS)).
// Relations compile inside out, so the outermost relation planned as n
// (a projection that became its input's node) is the last to write.
// Without row counts there is nothing to show: the estimate would be
// the fixed guess of an unknown table.
func (p *planner) noteEstimate(r splan.Rel, n exec.Node) {
	if p.opt.Estimates == nil || n == nil {
		return
	}
	rc, ok := p.cat.(RowCounter)
	if !ok {
		return
	}
	if e, known := optimize.Estimated(r, rc); known {
		p.opt.Estimates[n] = e.Rows
	}
}
