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
// must be true (LEFT JOIN LATERAL ... ON TRUE), since a condition that
// removes some of a row's function rows decides whether the row is
// NULL-extended, which the expand does not evaluate.
func (p *planner) expand(j *splan.JoinRel, fn *splan.ExtensionTableReadRel, need []bool) (*rel, error) {
	left := false
	switch j.Type() {
	case splan.JoinTypeInner:
	case splan.JoinTypeLeft:
		left = true
		if !isTrue(j.Expr()) {
			return nil, fmt.Errorf("%w: LEFT JOIN LATERAL of a table function on a condition other than TRUE", errUnsupported("join"))
		}
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
	for i, key := range []string{"start", "stop", "step"} {
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
	for i, a := range args {
		c, err := l.field(a)
		if err != nil {
			return nil, err
		}
		if at := l.schema().Field(c.Index).Type; !arrow.TypeEqual(at, bt) {
			return nil, fmt.Errorf("%w: generate_series argument of type %s for a %s column", ErrInvalidPlan, at, bt)
		}
		cols[i] = c.Index
	}
	ordName := ""
	if ord {
		ordName = base.Names[1]
	}
	node, err := exec.NewExpandExec(l.node, cols[0], cols[1], cols[2], base.Names[0], ordName, left)
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
	return out, nil
}
