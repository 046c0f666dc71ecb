package plan

import (
	"fmt"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan/optimize"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// markJoin plans a mark join (Substrait's LEFT_MARK: the left rows and
// the mark, exec.JoinMark), which the ingest wrote as a LEFT join of the
// left input and Project(right, [true]) marked by an enhancement
// (plan/ingest/markjoin.go): substrait-go types that one. The project's
// column is only the mark's place; the right input itself is joined. The
// condition is split as any join's, keys and residual, but no conjunct
// filters an input: each decides the mark in three-valued logic (a right
// row whose conjunct is NULL makes the mark NULL where no row makes it
// true; filtered out, it would make it FALSE), so every conjunct that is
// not a key is the residual (joinParts: JoinMark filters neither side).
func (p *planner) markJoin(j *splan.JoinRel, need []bool) (*rel, error) {
	proj, ok := j.Right().(*splan.ProjectRel)
	if !ok || len(proj.Expressions()) != 1 || proj.OutputMapping() != nil || j.Type() != splan.JoinTypeLeft {
		return nil, fmt.Errorf("%w: a mark join is a LEFT join of a one-column project (plan/ingest/markjoin.go)", ErrInvalidPlan)
	}
	if postFilter(j) != nil {
		return nil, fmt.Errorf("%w: a mark join's post-join filter", errUnsupported("join"))
	}
	if err := checkFuncs(j.Expr()); err != nil {
		return nil, err
	}
	nl, err := p.width(j.Left())
	if err != nil {
		return nil, err
	}
	nr, err := p.width(proj.Input())
	if err != nil {
		return nil, err
	}
	jp, err := splitJoin(j, nl)
	if err != nil {
		return nil, err
	}
	jp.subplan = optimize.IsSubPlanJoin(j.GetAdvancedExtension())
	return p.joinParts(j.Left(), proj.Input(), nl, nr, exec.JoinMark, jp, nil, need)
}

// markedRel is a mark join's output as the LEFT join it was read as: the
// left input's fields, the right input's nr (not produced: the mark join
// outputs the left columns only), then the mark, node column lw.
func markedRel(node exec.Node, left *rel, nr, lw int) *rel {
	cols := append([]int{}, left.cols...)
	names := append([]string{}, left.names...)
	for range nr {
		cols, names = append(cols, -1), append(names, "")
	}
	return &rel{node: node, cols: append(cols, lw), names: append(names, "mark")}
}
