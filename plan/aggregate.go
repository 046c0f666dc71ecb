package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// aggregateFuncs are the aggregate functions the planner executes, by the
// simple name a plan declares, with their argument count (-1: 0 or 1, for
// count(*) and count(x)).
var aggregateFuncs = map[string]struct {
	f     exec.AggregateFunc
	nargs int
}{
	"count":      {exec.AggCount, -1},
	"sum":        {exec.AggSum, 1},
	"avg":        {exec.AggAvg, 1},
	"min":        {exec.AggMin, 1},
	"max":        {exec.AggMax, 1},
	"bool_and":   {exec.AggBoolAnd, 1},
	"bool_or":    {exec.AggBoolOr, 1},
	"string_agg": {exec.AggStringAgg, 2},
	"any_value":  {exec.AggAnyValue, 1},
	"bit_and":    {exec.AggBitAnd, 1},
	"bit_or":     {exec.AggBitOr, 1},
	// Ordered-set aggregates: the fraction (a direct argument) then the
	// value, whose order is the call's one sort (WITHIN GROUP).
	"percentile_cont": {exec.AggPercentileCont, 2},
	"percentile_disc": {exec.AggPercentileDisc, 2},
	"mode":            {exec.AggMode, 1},
	// Substrait's std_dev and variance; the distribution option picks the
	// sample (the default) or population form (statsFunc).
	"std_dev":  {exec.AggStdDevSamp, 1},
	"variance": {exec.AggVarSamp, 1},
}

// statsFunc is std_dev's or variance's function under f's distribution
// option: stddev_samp/var_samp for SAMPLE, stddev_pop/var_pop for
// POPULATION.
func statsFunc(fn exec.AggregateFunc, f *expr.AggregateFunction) (exec.AggregateFunc, error) {
	sample, err := substraitfn.StatsSample(f)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	switch {
	case sample:
		return fn, nil
	case fn == exec.AggStdDevSamp:
		return exec.AggStdDevPop, nil
	default:
		return exec.AggVarPop, nil
	}
}

// orderedSet reports whether f is an ordered-set aggregate.
func orderedSet(f exec.AggregateFunc) bool {
	return f == exec.AggPercentileCont || f == exec.AggPercentileDisc || f == exec.AggMode
}

// aggregate plans an AggregateRel with at most one grouping set: group
// columns then measures. It streams (OrderedAggregateExec) when the input
// is known to be ordered on the group columns, and hashes otherwise.
func (p *planner) aggregate(r *splan.AggregateRel) (*rel, error) {
	gexprs := r.GroupingExpressions()
	refs := r.GroupingReferences()
	if len(refs) > 1 {
		return nil, fmt.Errorf("%w: GROUPING SETS (%d grouping sets)", ErrUnsupported, len(refs))
	}
	var groups []expr.Expression
	for _, g := range refs {
		for _, i := range g {
			if int(i) >= len(gexprs) {
				return nil, fmt.Errorf("%w: grouping reference %d out of range (%d expressions)", ErrInvalidPlan, i, len(gexprs))
			}
			groups = append(groups, gexprs[i])
		}
	}
	if len(refs) == 1 {
		// A roll-up that cannot be planned (the finest keys' input columns
		// of a type no hash aggregate groups by, ...) leaves the
		// expansion, which raises any error of the statement's own.
		if out, ok, err := p.rolledUp(r, groups); err == nil && ok {
			return out, nil
		}
	}
	out, _, err := p.aggregateOver(r.Input(), groups, r.Measures(), false)
	return out, err
}

// aggregateOver plans the aggregation of input by groups with measures ms,
// their expressions over input. hashed: a HashAggregateExec always (it is
// returned too; nil when the ordered aggregate was planned).
func (p *planner) aggregateOver(input splan.Rel, groups []expr.Expression, ms []splan.AggRelMeasure, hashed bool) (*rel, *exec.HashAggregateExec, error) {
	w, err := p.width(input)
	if err != nil {
		return nil, nil, err
	}
	aggs := make([]exec.Aggregate, len(ms))
	var margs [][]expr.Expression
	var filters []expr.Expression // per measure: its FILTER, nil for none
	all := slices.Clone(groups)
	for i, m := range ms {
		f := m.Measure()
		if f == nil {
			return nil, nil, fmt.Errorf("%w: aggregate measure without a function", ErrInvalidPlan)
		}
		name := p.aggregateName(f)
		if name == "" {
			return nil, nil, fmt.Errorf("%w: aggregate function anchor not declared", ErrInvalidPlan)
		}
		fn, ok := aggregateFuncs[name]
		if !ok {
			return nil, nil, fmt.Errorf("%w: %s", errUnsupported("aggregate function"), name)
		}
		if fn.f == exec.AggStdDevSamp || fn.f == exec.AggVarSamp {
			var err error
			if fn.f, err = statsFunc(fn.f, f); err != nil {
				return nil, nil, err
			}
		}
		var flt expr.Expression
		if f := m.Filter(); f != nil && !isTrue(f) {
			flt = f
			all = append(all, f)
		}
		filters = append(filters, flt)
		if f.Phase() != types.AggPhaseInitialToResult && f.Phase() != types.AggPhaseUnspecified {
			return nil, nil, fmt.Errorf("%w: aggregation phase %s", ErrUnsupported, f.Phase())
		}
		desc := false
		switch {
		case orderedSet(fn.f):
			// WITHIN GROUP (ORDER BY x): one sort, by the value argument.
			if len(f.Sorts) != 1 || f.NArgs() == 0 || !sameSortValue(f.Sorts[0].Expr, asExpr(f.Arg(f.NArgs()-1))) {
				return nil, nil, fmt.Errorf("%w: %s needs one sort, by its last argument (WITHIN GROUP (ORDER BY x))", ErrInvalidPlan, name)
			}
			d, ok := f.Sorts[0].Kind.(types.SortDirection)
			if !ok {
				return nil, nil, fmt.Errorf("%w: %s ordered by a comparison function", ErrUnsupported, name)
			}
			desc = d == types.SortDescNullsFirst || d == types.SortDescNullsLast
		case len(f.Sorts) > 0:
			return nil, nil, fmt.Errorf("%w: ORDER BY inside %s", ErrUnsupported, name)
		}
		n := f.NArgs()
		if (fn.nargs < 0 && n > 1) || (fn.nargs >= 0 && n != fn.nargs) {
			return nil, nil, fmt.Errorf("%w: %s with %d arguments", ErrInvalidPlan, name, n)
		}
		var args []expr.Expression
		for k := range n {
			a, ok := f.Arg(k).(expr.Expression)
			if !ok {
				return nil, nil, fmt.Errorf("%w: %s argument %s", ErrInvalidPlan, name, f.Arg(k))
			}
			args = append(args, a)
		}
		aggs[i] = exec.Aggregate{Func: fn.f, Distinct: f.Invocation() == types.AggInvocationDistinct, Name: fmt.Sprintf("%s%d", name, i), Desc: desc}
		if fn.f == exec.AggCount && n == 0 {
			aggs[i].Func, aggs[i].Distinct = exec.AggCountStar, false
		}
		margs = append(margs, args)
		all = append(all, args...)
	}
	inNeed, err := inputNeed(w, make([]bool, w), all...)
	if err != nil {
		return nil, nil, err
	}
	in, err := p.compile(input, inNeed, hint{})
	if err != nil {
		return nil, nil, err
	}
	// Every group key and argument becomes an input column: a plain
	// column as it is, anything else computed by one ProjectExec below.
	var extras []physexpr.Expr
	var names []string
	var slots []*int
	var computed func(ce physexpr.Expr, name string, slot *int) error
	column := func(e expr.Expression, name string, slot *int) error {
		ce, err := p.expr(e, in)
		if err != nil {
			return err
		}
		return computed(ce, name, slot)
	}
	computed = func(ce physexpr.Expr, name string, slot *int) error {
		if c, ok := ce.(physexpr.Col); ok {
			*slot = c.Index
			return nil
		}
		extras, names, slots = append(extras, ce), append(names, name), append(slots, slot)
		return nil
	}
	gcols := make([]int, len(groups))
	for i, g := range groups {
		if err := column(g, fmt.Sprintf("group%d", i), &gcols[i]); err != nil {
			return nil, nil, err
		}
	}
	for i, args := range margs {
		if filters[i] != nil {
			if err := p.filteredArgs(&aggs[i], args, filters[i], in, computed); err != nil {
				return nil, nil, err
			}
			continue
		}
		aggs[i].Args = make([]int, len(args))
		for k, a := range args {
			if err := column(a, fmt.Sprintf("arg%d_%d", i, k), &aggs[i].Args[k]); err != nil {
				return nil, nil, err
			}
		}
	}
	node := in.node
	if len(extras) > 0 {
		var idx []int
		if node, idx, err = withExtra(p.extended, node, extras, names); err != nil {
			return nil, nil, err
		}
		for k, s := range slots {
			*s = idx[k]
		}
	}
	var agg exec.Node
	// An ordered-set aggregate's values are reserved in the hash
	// aggregate (a typed error over the memory limit): hashed always.
	if !hashed && orderedOn(node.Properties().Ordering, gcols) && !slices.ContainsFunc(aggs, func(a exec.Aggregate) bool { return orderedSet(a.Func) }) {
		agg, err = exec.NewOrderedAggregateExec(node, gcols, aggs)
	} else {
		agg, err = exec.NewHashAggregateExec(node, gcols, aggs)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	out := &rel{node: agg}
	for i, f := range agg.Schema().Fields() {
		out.cols, out.names = append(out.cols, i), append(out.names, f.Name)
	}
	h, _ := agg.(*exec.HashAggregateExec)
	return out, h, nil
}

// filteredArgs places the arguments of an aggregate with FILTER (WHERE
// cond): its first argument becomes CASE WHEN cond THEN arg END, and
// count(*) becomes count(CASE WHEN cond THEN true END). PostgreSQL skips
// the transition of a row whose filter is not TRUE (ExecBuildAggTrans
// jumps over it); every aggregate the planner executes skips a row whose
// first argument is NULL as well (string_agg a NULL value, the strict
// ones any NULL argument, count(x) and DISTINCT a NULL x), so nulling that
// argument is the same skip. CASE evaluates arg only over the rows cond
// keeps (physexpr.Case), so an argument that would raise on a filtered-out
// row does not, as in PostgreSQL.
func (p *planner) filteredArgs(a *exec.Aggregate, args []expr.Expression, cond expr.Expression, in *rel, place func(physexpr.Expr, string, *int) error) error {
	ce, err := p.expr(cond, in)
	if err != nil {
		return err
	}
	if a.Func == exec.AggCountStar {
		a.Func = exec.AggCount
		a.Args = make([]int, 1)
		gated := physexpr.Case{Whens: []physexpr.When{{Cond: ce, Then: physexpr.Lit{Value: true}}}}
		return place(gated, a.Name+"_filtered", &a.Args[0])
	}
	a.Args = make([]int, len(args))
	for k, arg := range args {
		ae, err := p.expr(arg, in)
		if err != nil {
			return err
		}
		if k == 0 {
			ae = physexpr.Case{Whens: []physexpr.When{{Cond: ce, Then: ae}}}
		}
		if err := place(ae, fmt.Sprintf("%s_arg%d", a.Name, k), &a.Args[k]); err != nil {
			return err
		}
	}
	return nil
}

// sameSortValue reports whether an ordered-set aggregate's sort is by its
// value argument v. substrait-go's Equals compares float literals with ==,
// so a value holding a NaN constant never equals itself: such a pair
// matches by type and text.
func sameSortValue(s, v expr.Expression) bool {
	if s == nil || v == nil {
		return false
	}
	return s.Equals(v) || s.GetType().Equals(v.GetType()) && s.String() == v.String()
}

// asExpr is a function argument as an expression (nil otherwise).
func asExpr(a types.FuncArg) expr.Expression {
	e, _ := a.(expr.Expression)
	return e
}

// orderedOn reports whether an input with ordering ord keeps rows with
// equal values of cols adjacent: the first len(cols) sort keys are cols, in
// any order.
func orderedOn(ord []exec.SortKey, cols []int) bool {
	if len(cols) == 0 || len(ord) < len(cols) {
		return false
	}
	for _, k := range ord[:len(cols)] {
		if !slices.Contains(cols, k.Column) {
			return false
		}
	}
	for _, c := range cols {
		if !slices.ContainsFunc(ord[:len(cols)], func(k exec.SortKey) bool { return k.Column == c }) {
			return false
		}
	}
	return true
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
