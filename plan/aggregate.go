package plan

import (
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/exec"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

func (p *planner) aggregate(r *splan.AggregateRel) (*rel, error) {
	if len(r.GroupingExpressions()) > 0 {
		return nil, fmt.Errorf("%w: GROUP BY", ErrUnsupported)
	}
	for _, g := range r.GroupingReferences() {
		if len(g) > 0 {
			return nil, fmt.Errorf("%w: GROUP BY", ErrUnsupported)
		}
	}
	w, err := p.width(r.Input())
	if err != nil {
		return nil, err
	}
	ms := r.Measures()
	var args []expr.Expression
	for _, m := range ms {
		f := m.Measure()
		if f == nil {
			return nil, fmt.Errorf("%w: aggregate measure without a function", ErrInvalidPlan)
		}
		switch name := p.aggregateName(f); name {
		case "count":
		case "":
			return nil, fmt.Errorf("%w: aggregate function anchor not declared", ErrInvalidPlan)
		default:
			return nil, fmt.Errorf("%w: %s", errUnsupported("aggregate function"), name)
		}
		if f := m.Filter(); f != nil && !isTrue(f) {
			return nil, fmt.Errorf("%w: aggregate FILTER", ErrUnsupported)
		}
		if f.Invocation() == types.AggInvocationDistinct {
			return nil, fmt.Errorf("%w: count(DISTINCT)", ErrUnsupported)
		}
		switch f.NArgs() {
		case 0:
		case 1:
			a, ok := f.Arg(0).(expr.Expression)
			if !ok {
				return nil, fmt.Errorf("%w: count argument %s", ErrInvalidPlan, f.Arg(0))
			}
			args = append(args, a)
		default:
			return nil, fmt.Errorf("%w: count with %d arguments", ErrInvalidPlan, f.NArgs())
		}
	}
	inNeed, err := inputNeed(w, make([]bool, w), args...)
	if err != nil {
		return nil, err
	}
	in, err := p.compile(r.Input(), inNeed, hint{})
	if err != nil {
		return nil, err
	}
	aggs := make([]exec.Aggregate, len(ms))
	var extras []exec.Expr
	var extraAgg []int
	for i, m := range ms {
		f := m.Measure()
		aggs[i].Name = fmt.Sprintf("count%d", i)
		if f.NArgs() == 0 {
			aggs[i].Func = exec.AggCountStar
			continue
		}
		aggs[i].Func = exec.AggCount
		ce, err := p.expr(f.Arg(0).(expr.Expression), in)
		if err != nil {
			return nil, err
		}
		if c, ok := ce.(exec.Col); ok {
			aggs[i].Column = c.Index
			continue
		}
		extras = append(extras, ce)
		extraAgg = append(extraAgg, i)
	}
	node := in.node
	if len(extras) > 0 {
		names := make([]string, len(extras))
		for k, i := range extraAgg {
			names[k] = fmt.Sprintf("arg%d", i)
		}
		var idx []int
		if node, idx, err = withExtra(p.extended, node, extras, names); err != nil {
			return nil, err
		}
		for k, i := range extraAgg {
			aggs[i].Column = idx[k]
		}
	}
	a, err := exec.NewAggregateExec(node, aggs)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	cols := make([]int, len(aggs))
	names := make([]string, len(aggs))
	for i := range aggs {
		cols[i], names[i] = i, aggs[i].Name
	}
	return &rel{node: a, cols: cols, names: names}, nil
}

// aggregateName is f's simple name as the plan declares it ("count" for
// "count:any"), "" when the plan does not declare its anchor. It reads the
// declaration rather than f.Name(): substrait-go leaves an aggregate it
// finds no collection entry for without one, and Name then panics.
func (p *planner) aggregateName(f *expr.AggregateFunction) string {
	id, ok := p.reg.DecodeFunc(f.ToProto().GetFunctionReference())
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(id.Name, ":")
	return name
}
