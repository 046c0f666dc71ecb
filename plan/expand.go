package plan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/stablerow/stablerow/plan/optimize"
)

// expandJoin reports whether j is a table function over its left input's
// columns (optimize/expand.go: a lateral join Decorrelate kept marked,
// whose right input is the function's read with {"left_field": k}
// arguments).
func expandJoin(j *splan.JoinRel) (*splan.ExtensionTableReadRel, bool) {
	if !substraitfn.IsLateralJoin(j.GetAdvancedExtension()) {
		return nil, false
	}
	r, ok := j.Right().(*splan.ExtensionTableReadRel)
	if !ok || !optimize.IsExpandDetail(r.Detail()) {
		return nil, false
	}
	return r, true
}

// expand plans the lateral join j of a table function read fn (the
// expand): exec.ExpandExec over the left input, calling the function per
// left row. An INNER join's condition filters the expansion; a LEFT one's
// is the expand's own ON condition, which decides per produced row and
// NULL-extends a left row none of whose rows pass (exec/expand_on.go).
// The step of a timestamp series is a constant interval in the detail
// ({"interval": {"months", "days", "microseconds"}}; substrait.md §4).
func (p *planner) expand(j *splan.JoinRel, fn *splan.ExtensionTableReadRel, need []bool) (*rel, error) {
	left := false
	switch j.Type() {
	case splan.JoinTypeInner:
	case splan.JoinTypeLeft:
		left = true
	default:
		return nil, fmt.Errorf("%w: LATERAL table function in a %s join", errUnsupported("join"), j.Type())
	}
	if j.PostJoinFilter() != nil && !isTrue(j.PostJoinFilter()) {
		return nil, fmt.Errorf("%w: LATERAL table function with a post-join filter", errUnsupported("join"))
	}
	var st structpb.Struct
	if err := fn.Detail().UnmarshalTo(&st); err != nil {
		return nil, fmt.Errorf("%w: extension table detail: %w", ErrInvalidPlan, err)
	}
	f := st.GetFields()
	if name := f["relation"].GetStringValue(); name != "stablerow.generate_series" {
		return nil, fmt.Errorf("%w: %q with arguments from the left input", errUnsupported("extension table"), name)
	}
	if fn.Filter() != nil || fn.Projection() != nil || fn.OutputMapping() != nil {
		return nil, fmt.Errorf("%w: generate_series over the left input with a filter, mask or emit", errUnsupported("read"))
	}
	nl, err := p.width(j.Left())
	if err != nil {
		return nil, err
	}
	ord := f["ordinality"].GetBoolValue()
	base := fn.BaseSchema()
	want := 1
	if ord {
		want = 2
	}
	if len(base.Names) != want || len(base.Struct.Types) != want {
		return nil, fmt.Errorf("%w: generate_series base_schema has %d columns, want %d", ErrInvalidPlan, len(base.Struct.Types), want)
	}
	// Each argument is a left column: {"left_field": k}.
	var args [3]int
	lneed := make([]bool, nl)
	for i := range lneed {
		lneed[i] = needs(need, i)
	}
	keys := []string{"start", "stop", "step"}
	iv, err := seriesInterval(f["step"])
	if err != nil {
		return nil, err
	}
	if iv != nil {
		keys = keys[:2]
	}
	for i, key := range keys {
		k, err := intField(f[key].GetStructValue().GetFields(), optimize.ExpandArgKey, 0, false)
		if err != nil {
			return nil, fmt.Errorf("%w (generate_series %s over the left input)", err, key)
		}
		if k < 0 || k >= int64(nl) {
			return nil, fmt.Errorf("%w: generate_series %s is left field %d of %d", ErrInvalidPlan, key, k, nl)
		}
		args[i], lneed[k] = int(k), true
	}
	// The condition filters the expansion: the left columns it reads are
	// needed even where the parent reads none of them.
	if err := refs(j.Expr(), func(i int) error {
		if i >= 0 && i < nl {
			lneed[i] = true
		}
		return nil
	}); err != nil {
		return nil, err
	}
	l, err := p.compile(j.Left(), lneed, hint{noTake: true})
	if err != nil {
		return nil, err
	}
	bt, err := arrowType(base.Struct.Types[0])
	if err != nil {
		return nil, err
	}
	cols := make([]int, 3)
	for i, a := range args[:len(keys)] {
		c, err := l.field(a)
		if err != nil {
			return nil, err
		}
		if at := l.schema().Field(c.Index).Type; !arrow.TypeEqual(at, bt) && (i != 1 || at.ID() != arrow.DECIMAL128 || bt.ID() != arrow.DECIMAL128) {
			return nil, fmt.Errorf("%w: generate_series argument of type %s for a %s column", ErrInvalidPlan, at, bt)
		}
		cols[i] = c.Index
	}
	ordName := ""
	if ord {
		ordName = base.Names[1]
	}
	node, err := exec.NewExpandExec(l.node, exec.SeriesArgs{Start: cols[0], Stop: cols[1], Step: cols[2], Interval: iv},
		base.Names[0], ordName, left)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	w := l.node.Schema().NumFields()
	out := &rel{node: node, cols: append(append([]int{}, l.cols...), w), names: append(append([]string{}, l.names...), base.Names[0])}
	if ord {
		out.cols, out.names = append(out.cols, w+1), append(out.names, ordName)
	}
	if j.Type() == splan.JoinTypeInner && !isTrue(j.Expr()) {
		return p.applyFilter(out, j.Expr())
	}
	if left && !isTrue(j.Expr()) {
		on, err := p.expr(j.Expr(), out)
		if err != nil {
			return nil, err
		}
		if out.node, err = node.WithOn(on); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
		}
	}
	return out, nil
}

// seriesInterval reads a timestamp series' constant step, the detail's
// "step": {"interval": {"months": m, "days": d, "microseconds": us}} (each
// optional, zero by default); nil where the step is a left column.
func seriesInterval(step *structpb.Value) (*exec.Interval, error) {
	v, ok := step.GetStructValue().GetFields()["interval"]
	if !ok {
		return nil, nil
	}
	f := v.GetStructValue().GetFields()
	if f == nil {
		return nil, fmt.Errorf("%w: generate_series interval step is not an object", ErrInvalidPlan)
	}
	var iv exec.Interval
	var err error
	if iv.Months, err = intField(f, "months", 0, true); err != nil {
		return nil, err
	}
	if iv.Days, err = intField(f, "days", 0, true); err != nil {
		return nil, err
	}
	if iv.Micros, err = intField(f, "microseconds", 0, true); err != nil {
		return nil, err
	}
	return &iv, nil
}
