package plan

import (
	"fmt"

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

// sort plans a SortRel, or elides it when its input comes ordered from a
// take and that ordering already satisfies the keys.
func (p *planner) sort(r *splan.SortRel, need []bool) (*rel, error) {
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
	keys := make([]exec.SortKey, len(sorts))
	var extras []physexpr.Expr
	var extraKey []int
	for i, s := range sorts {
		desc, nullsFirst, err := sortKey(s.Kind)
		if err != nil {
			return nil, err
		}
		ce, err := p.expr(s.Expr, in)
		if err != nil {
			return nil, err
		}
		keys[i] = exec.SortKey{Descending: desc, NullsFirst: nullsFirst}
		if c, ok := ce.(physexpr.Col); ok {
			keys[i].Column, keys[i].Name = c.Index, c.Name
			continue
		}
		keys[i].Name = fmt.Sprintf("sort%d", i)
		extras = append(extras, ce)
		extraKey = append(extraKey, i)
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
	} else if in.takeOrdered && exec.OrderingSatisfies(in.node.Properties().Ordering, keys) {
		return in, nil
	}
	s, err := exec.NewSortExec(node, keys)
	if err != nil {
		return nil, fmt.Errorf("%w: sort: %w", ErrInvalidPlan, err)
	}
	return &rel{node: s, cols: in.cols, names: in.names}, nil
}
