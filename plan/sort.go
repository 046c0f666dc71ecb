package plan

import (
	"fmt"
	"slices"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/stablerow/stablerow/exec"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// sortKey converts a Substrait sort direction.
func sortKey(kind types.SortKind) (desc, nullsFirst bool, err error) {
	d, ok := kind.(types.SortDirection)
	if !ok {
		return false, false, fmt.Errorf("%w: custom comparison function", errUnsupported("sort"))
	}
	switch d {
	case types.SortAscNullsLast, types.SortUnspecified:
		return false, false, nil
	case types.SortAscNullsFirst:
		return false, true, nil
	case types.SortDescNullsFirst:
		return true, true, nil
	case types.SortDescNullsLast:
		return true, false, nil
	}
	return false, false, fmt.Errorf("%w: direction %s", errUnsupported("sort"), d)
}

// sort plans a SortRel as PostgreSQL plans its ORDER BY: keys that order
// nothing (constants, repeats) are dropped, and when what is left is a
// prefix of the order the input comes in (pathkeys, ordering.go) there is
// no sort at all (create_ordered_paths: pathkeys_contained_in), so a
// LIMIT above (h.rows) reads its rows through the input's filters and
// projections and stops there.
func (p *planner) sort(r *splan.SortRel, need []bool, h hint) (*rel, error) {
	w, err := p.width(r.Input())
	if err != nil {
		return nil, err
	}
	sorts := r.Sorts()
	if len(sorts) == 0 {
		return p.compile(r.Input(), need, hint{})
	}
	keyExprs := make([]expr.Expression, len(sorts))
	for i, s := range sorts {
		keyExprs[i] = s.Expr
	}
	inNeed, err := inputNeed(w, need, keyExprs...)
	if err != nil {
		return nil, err
	}
	ok, err := p.sortOnDriving(r)
	if err != nil {
		return nil, err
	}
	in, err := p.compile(r.Input(), inNeed, hint{noTake: !ok})
	if err != nil {
		return nil, err
	}
	keys := make([]exec.SortKey, 0, len(sorts))
	var extras []physexpr.Expr
	var extraKey []int
	var ordered []exec.SortKey // the keys on input columns, constants and repeats dropped
	for _, s := range sorts {
		desc, nullsFirst, err := sortKey(s.Kind)
		if err != nil {
			return nil, err
		}
		ce, err := p.expr(s.Expr, in)
		if err != nil {
			return nil, err
		}
		if _, constant := ce.(physexpr.Lit); constant {
			continue // the same on every row: it orders nothing
		}
		k := exec.SortKey{Descending: desc, NullsFirst: nullsFirst}
		if c, ok := ce.(physexpr.Col); ok {
			if pr, isProject := in.node.(*exec.ProjectExec); isProject && pr.ConstantColumn(c.Index) {
				continue // a select item that is a constant (ORDER BY 'x'::real, ...)
			}
			k.Column, k.Name = c.Index, c.Name
			if !slices.ContainsFunc(ordered, func(o exec.SortKey) bool { return o.Column == k.Column }) {
				ordered = append(ordered, k)
			}
			keys = append(keys, k)
			continue
		}
		k.Name = fmt.Sprintf("sort%d", len(keys))
		extras = append(extras, ce)
		extraKey = append(extraKey, len(keys))
		keys = append(keys, k)
	}
	if len(keys) == 0 || len(extras) == 0 && exec.OrderingSatisfies(p.pathkeys(in.node), ordered) {
		if !h.rowsSet {
			return in, nil
		}
		node, err := p.withRowBudget(in.node, h.rows)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
		}
		return &rel{node: node, cols: in.cols, names: in.names}, nil
	}
	node := in.node
	if len(extras) > 0 {
		names := make([]string, len(extras))
		for k, i := range extraKey {
			names[k] = keys[i].Name
		}
		var idx []int
		if node, idx, err = withExtra(p.extended, node, extras, names); err != nil {
			return nil, err
		}
		for k, i := range extraKey {
			keys[i].Column = idx[k]
		}
	}
	s, err := exec.NewSortExec(node, keys)
	if err != nil {
		return nil, fmt.Errorf("%w: sort: %w", ErrInvalidPlan, err)
	}
	return &rel{node: s, cols: in.cols, names: in.names}, nil
}
