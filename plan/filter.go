package plan

import (
	"fmt"

	"github.com/stablerow/stablerow/exec"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// filter plans a FilterRel as a FilterExec (which keeps the input order).
func (p *planner) filter(r *splan.FilterRel, need []bool) (*rel, error) {
	w, err := p.width(r.Input())
	if err != nil {
		return nil, err
	}
	inNeed, err := inputNeed(w, need, r.Condition())
	if err != nil {
		return nil, err
	}
	p.noteKeySet(r)
	in, err := p.compile(r.Input(), inNeed, hint{})
	if err != nil {
		return nil, err
	}
	return p.applyFilter(in, r.Condition())
}

// applyFilter puts a FilterExec of cond over in.
func (p *planner) applyFilter(in *rel, cond expr.Expression) (*rel, error) {
	return p.filterIn(in, in, cond)
}

// filterIn is applyFilter with cond's field references resolved by sc.
func (p *planner) filterIn(in *rel, sc scope, cond expr.Expression) (*rel, error) {
	if isTrue(cond) {
		return in, nil
	}
	pred, err := p.expr(cond, sc)
	if err != nil {
		return nil, err
	}
	f, err := exec.NewFilterExec(in.node, pred)
	if err != nil {
		return nil, fmt.Errorf("%w: filter: %w", ErrInvalidPlan, err)
	}
	return &rel{node: f, cols: in.cols, names: in.names, takeOrdered: in.takeOrdered}, nil
}

// fetch plans a FetchRel (OFFSET/LIMIT; count -1 is all rows) as a LimitExec.
func (p *planner) fetch(r *splan.FetchRel, need []bool) (*rel, error) {
	if r.Offset() < 0 || r.Count() < -1 {
		return nil, fmt.Errorf("%w: fetch offset %d count %d", ErrInvalidPlan, r.Offset(), r.Count())
	}
	in, err := p.compile(r.Input(), need, hint{})
	if err != nil {
		return nil, err
	}
	lim := exec.NewLimitExec(in.node, r.Offset(), r.Count())
	return &rel{node: lim, cols: in.cols, names: in.names, takeOrdered: in.takeOrdered}, nil
}
