package plan

import (
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/stablerow/stablerow/exec"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// withExtra returns node extended by the computed columns extras (named
// names) after all of node's columns, and the extras' column indices. Every
// existing column keeps its index, so field mappings stay valid, and since
// they pass through as plain columns the ordering is kept too.
func withExtra(extended map[exec.Node]extension, node exec.Node, extras []physexpr.Expr, names []string) (exec.Node, []int, error) {
	sc := node.Schema()
	exprs := make([]physexpr.Expr, 0, sc.NumFields()+len(extras))
	all := make([]string, 0, sc.NumFields()+len(extras))
	for i, f := range sc.Fields() {
		exprs = append(exprs, physexpr.Col{Index: i, Name: f.Name})
		all = append(all, f.Name)
	}
	idx := make([]int, len(extras))
	for i, e := range extras {
		idx[i] = len(exprs)
		exprs = append(exprs, e)
		all = append(all, names[i])
	}
	pr, err := exec.NewProjectExec(node, exprs, all)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	extended[pr] = extension{input: node, exprs: exprs}
	return pr, idx, nil
}

// extension remembers what withExtra built, so the root projection can be
// folded into it (one ProjectExec instead of two).
type extension struct {
	input exec.Node
	exprs []physexpr.Expr // one per column of the ProjectExec
}

// project plans a ProjectRel: a field that is a plain column costs nothing
// (only the field mapping changes); computed fields become one ProjectExec.
func (p *planner) project(r *splan.ProjectRel, need []bool, h hint) (*rel, error) {
	w, err := p.width(r.Input())
	if err != nil {
		return nil, err
	}
	exprs := r.Expressions()
	used := make([]expr.Expression, 0, len(exprs))
	for j, e := range exprs {
		if needs(need, w+j) {
			used = append(used, e)
		}
	}
	inNeed, err := inputNeed(w, need, append(used, windowRefs(used)...)...)
	if err != nil {
		return nil, err
	}
	ih := hint{}
	switch r.Input().(type) {
	case *splan.JoinRel:
		ih = hint{noTake: h.noTake} // not rows: the LIMIT cuts this projection's input, not the join's
	case *splan.FilterRel, *splan.SortRel:
		if !hasWindow(used) {
			// Each row projected is a row filtered, or sorted: a sort
			// passes it on only where it is elided (sort.go).
			ih = hint{rows: h.rows, rowsSet: h.rowsSet}
		}
	}
	in, err := p.compile(r.Input(), inNeed, ih)
	if err != nil {
		return nil, err
	}
	var winCols map[int]int // window functions: their columns (window.go)
	if hasWindow(used) {
		if in, winCols, err = p.windows(in, w, exprs, need); err != nil {
			return nil, err
		}
	}
	cols := make([]int, w+len(exprs))
	names := make([]string, w+len(exprs))
	for i := 0; i < w; i++ {
		cols[i], names[i] = in.cols[i], in.names[i]
		if !needs(need, i) {
			cols[i] = -1
		}
	}
	var extras []physexpr.Expr
	var extraNames []string
	var extraField []int
	for j, e := range exprs {
		f := w + j
		names[f] = fmt.Sprintf("expr%d", j)
		cols[f] = -1
		if !needs(need, f) {
			continue
		}
		if c, ok := winCols[j]; ok {
			cols[f] = c
			continue
		}
		ce, err := p.expr(e, in)
		if err != nil {
			return nil, err
		}
		if c, ok := ce.(physexpr.Col); ok {
			cols[f], names[f] = c.Index, c.Name
			continue
		}
		extras = append(extras, ce)
		extraNames = append(extraNames, names[f])
		extraField = append(extraField, f)
	}
	node := in.node
	if len(extras) > 0 {
		if h.rowsSet {
			// Only the rows the LIMIT above reads are projected (fetch).
			node = exec.NewLimitExec(node, 0, h.rows)
		}
		var idx []int
		if node, idx, err = withExtra(p.extended, node, extras, extraNames); err != nil {
			return nil, err
		}
		for k, f := range extraField {
			cols[f] = idx[k]
		}
	}
	return &rel{node: node, cols: cols, names: names}, nil
}
