package optimize

import (
	"fmt"
	"sort"
	"strings"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// General unnesting: a correlated subquery (or a LATERAL join's right
// side) whose outer references are where flatten cannot take them (in a
// join, an aggregate, a sort key, a fetch, a set operation, below other
// relations) is unnested as "Unnesting Arbitrary Queries" (Neumann and
// Kemper, 2015) eliminates a dependent join, the way DuckDB's
// FlattenDependentJoins does. With D the distinct values of the outer
// columns the subquery reads (the domain), the dependent join
//
//	cur ⋈dep S   =   cur ⋈ (D ⋈dep S) on cur's columns IS NOT DISTINCT FROM D's
//
// and D ⋈dep S is pushed down through S's operators (dep) until no
// outer reference remains, where it becomes the cross product D × S':
// each operator above gets D's columns first and computes per D row
// (a filter or project reads D's columns for the outer references; an
// aggregate, a set operation and a window are also grouped, partitioned
// by them; a join pushes D into the sides that need it and joins them on
// D too). An ungrouped aggregate, which has one row over no input, is
// LEFT joined to D (its count 0, the others NULL); a fetch becomes a
// row_number() per D row in its input's order, filtered (top-N per
// group, as DuckDB does). IS NOT DISTINCT FROM lets an outer NULL meet
// its own D row, so a NULL correlation value sees the subquery
// PostgreSQL's SubPlan evaluates with that NULL parameter.
//
// An outer reference steps_out n > 1 inside S reaches past the query S
// is unnested into: it becomes steps_out n - 1 there, decorrelated when
// that query is (two-level correlation).

// domain is the outer query's distinct correlation values.
type domain struct {
	rel *substraitpb.Rel // an aggregate grouped by the outer columns (no measures)
	k   int              // its width
	pos map[int]int      // outer field -> its column in rel
}

// newDomain is D: cur (width w) grouped by the fields (over a copy of
// cur: the plan is a tree, and cur stays the join's left input).
func (u *unnester) newDomain(cur *substraitpb.Rel, fields []int) *domain {
	d := &domain{k: len(fields), pos: map[int]int{}}
	keys, refs := make([]*substraitpb.Expression, d.k), make([]uint32, d.k)
	for i, o := range fields {
		d.pos[o], keys[i], refs[i] = i, fieldExpr(o), uint32(i)
	}
	d.rel = u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Aggregate{Aggregate: &substraitpb.AggregateRel{
		Common: direct(), Input: u.copyRel(cur), GroupingExpressions: keys,
		Groupings: []*substraitpb.AggregateRel_Grouping{{ExpressionReferences: refs}},
	}}}, d.k)
	return d
}

// An empty domain (k = 0) is a subquery that reads no column of the
// query one level out, only queries further out (steps_out n > 1, as a
// third-level EXISTS reading the first level's row): D is then one row of
// no columns, so D ⋈dep S is S with its outer references one level
// nearer. dep builds no D for it: a relation without an outer reference
// is itself, an ungrouped aggregate its own one row (an aggregate
// grouped by no key, D's relation, would be no relation at all).

// copyD is a fresh copy of D's relation (each use is its own subtree).
func (u *unnester) copyD(d *domain) *substraitpb.Rel {
	return u.made(u.copyRel(d.rel), d.k)
}

// outerFieldsOfRel are the fields of the query one level out that the
// relation tree s reads (outer references steps_out 1), in order. s
// holds no subquery expression (Decorrelate rewrote them), so every
// steps_out counts from s's own level.
func outerFieldsOfRel(s *substraitpb.Rel) []int {
	seen := map[int]bool{}
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if m.Descriptor().FullName() == exprName {
			if f := m.Interface().(*substraitpb.Expression).GetSelection(); f != nil && f.GetOuterReference().GetStepsOut() == 1 {
				seen[int(f.GetDirectReference().GetStructField().GetField())] = true
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Kind() != protoreflect.MessageKind || fd.IsMap():
			case fd.IsList():
				l := v.List()
				for i := range l.Len() {
					walk(l.Get(i).Message())
				}
			default:
				walk(v.Message())
			}
			return true
		})
	}
	walk(s.ProtoReflect())
	out := make([]int, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Ints(out)
	return out
}

// unnestGeneral joins the correlated relation s to cur (width w) as
// flatten would: the relation to join (D ⋈dep S: D's columns, then s's),
// the join conditions (cur's correlation columns IS NOT DISTINCT FROM
// D's) and s's columns, in the join's field space.
func (u *unnester) unnestGeneral(cur *substraitpb.Rel, w int, s *substraitpb.Rel, path string) (*flat, error) {
	if cur == nil {
		return nil, unsupportedAt("expression", path, "outer reference inside a %s here", relKind(s.GetRelType()))
	}
	fields := outerFieldsOfRel(s)
	for _, o := range fields {
		if o < 0 || o >= w {
			return nil, invalidAt(path, "outer field %d out of range (the query has %d columns)", o, w)
		}
	}
	d := u.newDomain(cur, fields)
	r, err := u.dep(d, s, path)
	if err != nil {
		return nil, err
	}
	f := &flat{base: r, cols: make([]*substraitpb.Expression, u.width(s))}
	for i := range f.cols {
		f.cols[i] = fieldExpr(w + d.k + i)
	}
	for i, o := range fields {
		f.conds = append(f.conds, u.call("is_not_distinct_from", requiredBoolean, fieldExpr(o), fieldExpr(w+i)))
	}
	return f, nil
}

// depExpr moves e, over a relation's input, to the same relation over
// D ⋈dep input: the input's columns follow D's, an outer reference one
// level out reads D's column, one further out is one level nearer.
func (u *unnester) depExpr(d *domain, e *substraitpb.Expression, root func(int) int, path string) (*substraitpb.Expression, error) {
	if e == nil {
		return nil, nil
	}
	out, err := remapRefs(e, func(isRoot bool, steps uint32, field int) (*substraitpb.Expression, error) {
		switch {
		case isRoot:
			return fieldExpr(root(field)), nil
		case steps == 1:
			p, ok := d.pos[field]
			if !ok {
				return nil, bad("outer field %d not in the correlation's domain", field)
			}
			return fieldExpr(p), nil
		}
		return outerFieldExpr(steps-1, field), nil
	})
	return out, place(err, path)
}

// depCommon is the RelCommon of a relation over D ⋈dep its input whose
// original output column c is now newPos(c): D's columns first, then the
// original output (through its emit, n columns before it).
func depCommon(d *domain, c *substraitpb.RelCommon, n int, newPos func(int) int) *substraitpb.RelCommon {
	e := c.GetEmit()
	if e == nil {
		same := true
		for i := range n {
			same = same && newPos(i) == d.k+i
		}
		if same {
			return direct()
		}
	}
	out := iota32(0, d.k)
	if e == nil {
		for i := range n {
			out = append(out, int32(newPos(i)))
		}
	} else {
		for _, m := range e.GetOutputMapping() {
			out = append(out, int32(newPos(int(m))))
		}
	}
	return &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: out}}}
}

// dep is D ⋈dep s: s computed once per row of D, D's columns first
// (width d.k + width(s)).
func (u *unnester) dep(d *domain, s *substraitpb.Rel, path string) (*substraitpb.Rel, error) {
	k, ws := d.k, u.width(s)
	if !u.relHasOuterRef(s) {
		if k == 0 {
			return s, nil // no correlation value here: S once (see emptyDomain)
		}
		j := &substraitpb.Rel{RelType: &substraitpb.Rel_Cross{Cross: &substraitpb.CrossRel{Common: direct(), Left: u.copyD(d), Right: s}}}
		return u.made(j, k+ws), nil
	}
	shift := func(i int) int { return i + k }
	var err error
	out := &substraitpb.Rel{}
	switch t := s.GetRelType().(type) {
	case *substraitpb.Rel_Filter:
		f := t.Filter
		in, err := u.dep(d, f.GetInput(), path+".filter.input")
		if err != nil {
			return nil, err
		}
		cond, err := u.depExpr(d, f.GetCondition(), shift, path+".filter: condition")
		if err != nil {
			return nil, err
		}
		out.RelType = &substraitpb.Rel_Filter{Filter: &substraitpb.FilterRel{
			Common: depCommon(d, f.GetCommon(), u.width(f.GetInput()), shift), Input: in, Condition: cond}}
	case *substraitpb.Rel_Project:
		p := t.Project
		in, err := u.dep(d, p.GetInput(), path+".project.input")
		if err != nil {
			return nil, err
		}
		es := make([]*substraitpb.Expression, len(p.GetExpressions()))
		for i, x := range p.GetExpressions() {
			if es[i], err = u.depExpr(d, x, shift, fmt.Sprintf("%s.project: expressions[%d]", path, i)); err != nil {
				return nil, err
			}
			partitionByDomain(es[i], k)
		}
		out.RelType = &substraitpb.Rel_Project{Project: &substraitpb.ProjectRel{
			Common: depCommon(d, p.GetCommon(), u.width(p.GetInput())+len(es), shift), Input: in, Expressions: es}}
	case *substraitpb.Rel_Sort:
		so := t.Sort
		in, err := u.dep(d, so.GetInput(), path+".sort.input")
		if err != nil {
			return nil, err
		}
		sorts, err := u.depSorts(d, so.GetSorts(), shift, path+".sort")
		if err != nil {
			return nil, err
		}
		out.RelType = &substraitpb.Rel_Sort{Sort: &substraitpb.SortRel{
			Common: depCommon(d, so.GetCommon(), u.width(so.GetInput()), shift), Input: in, Sorts: sorts}}
	case *substraitpb.Rel_Aggregate:
		return u.depAggregate(d, s, t.Aggregate, path+".aggregate")
	case *substraitpb.Rel_Fetch:
		return u.depFetch(d, s, t.Fetch, path+".fetch")
	case *substraitpb.Rel_Cross:
		c := t.Cross
		j := &substraitpb.JoinRel{Common: c.GetCommon(), Left: c.GetLeft(), Right: c.GetRight(), Expression: trueExpr(), Type: substraitpb.JoinRel_JOIN_TYPE_INNER}
		return u.depJoin(d, j, ws, path+".cross")
	case *substraitpb.Rel_Join:
		return u.depJoin(d, t.Join, ws, path+".join")
	case *substraitpb.Rel_Set:
		st := t.Set
		ins := make([]*substraitpb.Rel, len(st.GetInputs()))
		for i, x := range st.GetInputs() {
			if ins[i], err = u.dep(d, x, fmt.Sprintf("%s.set.inputs[%d]", path, i)); err != nil {
				return nil, err
			}
		}
		n := 0
		if len(st.GetInputs()) > 0 {
			n = u.width(st.GetInputs()[0])
		}
		// A set operation per D row: D's columns are part of every row
		// it compares (as NULLs compare in one, not distinct).
		out.RelType = &substraitpb.Rel_Set{Set: &substraitpb.SetRel{Common: depCommon(d, st.GetCommon(), n, shift), Inputs: ins, Op: st.GetOp()}}
	default:
		return nil, unsupportedAt("expression", path, "outer reference inside a %s (unnested through filters, projects, sorts, aggregates, fetches, joins and set operations)", relKind(s.GetRelType()))
	}
	return u.made(out, k+ws), nil
}

// partitionByDomain makes each window function in e (a project's
// expression over D ⋈dep input, D's k columns first) compute per D row:
// D's columns lead its partitions. A window over the rows of one outer
// row must not number, rank or sum the rows of another: the fetch of an
// EXISTS read up to its first row (a row_number() after depFetch) that a
// query further out unnests again partitioned by the nearer domain alone,
// so the rows of every farther correlation value shared one first row.
func partitionByDomain(e *substraitpb.Expression, k int) {
	walkExprs(e.ProtoReflect(), func(x *substraitpb.Expression) bool {
		if w := x.GetWindowFunction(); w != nil {
			parts := make([]*substraitpb.Expression, 0, k+len(w.GetPartitions()))
			for i := range k {
				parts = append(parts, fieldExpr(i))
			}
			w.Partitions = append(parts, w.GetPartitions()...)
		}
		return true
	})
}

// depSorts moves sort fields as depExpr does.
func (u *unnester) depSorts(d *domain, sorts []*substraitpb.SortField, root func(int) int, path string) ([]*substraitpb.SortField, error) {
	out := make([]*substraitpb.SortField, len(sorts))
	for i, f := range sorts {
		e, err := u.depExpr(d, f.GetExpr(), root, fmt.Sprintf("%s: sorts[%d].expr", path, i))
		if err != nil {
			return nil, err
		}
		out[i] = &substraitpb.SortField{Expr: e, SortKind: f.GetSortKind()}
	}
	return out, nil
}

// depJoin is D ⋈dep (L ⋈ R) (width: D's, then the join's ws): D is
// pushed into L, and into R too when R or the condition's right side
// needs it, joined on D's columns (IS NOT DISTINCT FROM) there.
func (u *unnester) depJoin(d *domain, j *substraitpb.JoinRel, ws int, path string) (*substraitpb.Rel, error) {
	k := d.k
	lw, rw := u.width(j.GetLeft()), u.width(j.GetRight())
	rHas := u.relHasOuterRef(j.GetRight())
	jt := j.GetType()
	switch jt {
	case substraitpb.JoinRel_JOIN_TYPE_INNER, substraitpb.JoinRel_JOIN_TYPE_LEFT,
		substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI, substraitpb.JoinRel_JOIN_TYPE_LEFT_ANTI,
		substraitpb.JoinRel_JOIN_TYPE_LEFT_SINGLE, substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK:
	case substraitpb.JoinRel_JOIN_TYPE_RIGHT, substraitpb.JoinRel_JOIN_TYPE_OUTER:
		// These NULL-extend their left side, D's columns with it: D
		// goes into both sides (decorrelate_fulljoin.go).
		return u.depOuterJoin(d, j, ws, path)
	default:
		return nil, unsupportedAt("expression", path, "outer reference inside a %s join", jt)
	}
	left, err := u.dep(d, j.GetLeft(), path+".left")
	if err != nil {
		return nil, err
	}
	right, rk := j.GetRight(), 0
	if r, ok := shiftExpand(j, k); ok {
		right = r // an expand's arguments follow its left input (expand.go)
	} else if rHas {
		if right, err = u.dep(d, right, path+".right"); err != nil {
			return nil, err
		}
		rk = k
	}
	pos := func(f int) int {
		if f < lw {
			return k + f
		}
		return k + lw + rk + f - lw
	}
	cond, err := u.depExpr(d, j.GetExpression(), pos, path+": expression")
	if err != nil {
		return nil, err
	}
	conds := []*substraitpb.Expression{cond}
	for i := range rk {
		conds = append(conds, u.call("is_not_distinct_from", requiredBoolean, fieldExpr(i), fieldExpr(k+lw+i)))
	}
	pf, err := u.depExpr(d, j.GetPostJoinFilter(), pos, path+": post_join_filter")
	if err != nil {
		return nil, err
	}
	n := lw + rw // the join's columns before its emit
	switch jt {
	case substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI, substraitpb.JoinRel_JOIN_TYPE_LEFT_ANTI:
		n = lw
	case substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK:
		n = lw + 1
	}
	newPos := pos
	if jt == substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK {
		newPos = func(f int) int { return k + f } // the mark follows the left's columns
	}
	out := &substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
		Common: depCommon(d, j.GetCommon(), n, newPos), Left: left, Right: right,
		Expression: u.and(conds), PostJoinFilter: pf, Type: jt, AdvancedExtension: j.GetAdvancedExtension()}}}
	return u.made(out, k+ws), nil
}

// depAggregate is D ⋈dep aggregate: grouped by D's columns too. An
// ungrouped aggregate has a row over no input, so its D rows are all
// kept: D LEFT joined with it, count's NULL made 0.
func (u *unnester) depAggregate(d *domain, s *substraitpb.Rel, a *substraitpb.AggregateRel, path string) (*substraitpb.Rel, error) {
	k := d.k
	if len(a.GetGroupings()) > 1 {
		return nil, unsupportedAt("expression", path, "outer reference inside an aggregate with several groupings")
	}
	in, err := u.dep(d, a.GetInput(), path+".input")
	if err != nil {
		return nil, err
	}
	shift := func(i int) int { return i + k }
	keys := make([]*substraitpb.Expression, 0, k+len(a.GetGroupingExpressions()))
	refs := iota32u(k)
	for i := range k {
		keys = append(keys, fieldExpr(i))
	}
	grouped := false
	for i, g := range a.GetGroupingExpressions() {
		e, err := u.depExpr(d, g, shift, fmt.Sprintf("%s: grouping_expressions[%d]", path, i))
		if err != nil {
			return nil, err
		}
		keys = append(keys, e)
	}
	for _, g := range a.GetGroupings() {
		for _, r := range g.GetExpressionReferences() {
			refs, grouped = append(refs, r+uint32(k)), true
		}
		for i, e := range g.GetGroupingExpressions() {
			// The inline (deprecated) form: one more key each.
			x, err := u.depExpr(d, e, shift, fmt.Sprintf("%s: groupings.grouping_expressions[%d]", path, i))
			if err != nil {
				return nil, err
			}
			refs, grouped = append(refs, uint32(len(keys))), true
			keys = append(keys, x)
		}
	}
	measures := make([]*substraitpb.AggregateRel_Measure, len(a.GetMeasures()))
	for i, m := range a.GetMeasures() {
		mpath := fmt.Sprintf("%s: measures[%d]", path, i)
		nm := &substraitpb.AggregateRel_Measure{Measure: proto.Clone(m.GetMeasure()).(*substraitpb.AggregateFunction)}
		for _, arg := range nm.Measure.GetArguments() {
			if v := arg.GetValue(); v != nil {
				x, err := u.depExpr(d, v, shift, mpath)
				if err != nil {
					return nil, err
				}
				arg.ArgType = &substraitpb.FunctionArgument_Value{Value: x}
			}
		}
		if nm.Measure.Sorts, err = u.depSorts(d, nm.Measure.GetSorts(), shift, mpath); err != nil {
			return nil, err
		}
		if nm.Filter, err = u.depExpr(d, m.GetFilter(), shift, mpath); err != nil {
			return nil, err
		}
		measures[i] = nm
	}
	nkeys := len(keys) - k // the aggregate's own keys' columns
	n := nkeys + len(measures)
	agg := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Aggregate{Aggregate: &substraitpb.AggregateRel{
		Common: direct(), Input: in, GroupingExpressions: keys,
		Groupings: []*substraitpb.AggregateRel_Grouping{{ExpressionReferences: refs}}, Measures: measures,
	}}}, k+n)
	shiftOut := func(i int) int { return k + i }
	if grouped {
		common := depCommon(d, a.GetCommon(), n, shiftOut)
		agg.GetAggregate().Common = common
		return agg, nil
	}
	if k == 0 {
		return agg, nil // one row, as D's one row has (emptyDomain)
	}
	// Ungrouped: every D row has the aggregate's one row.
	on := make([]*substraitpb.Expression, k)
	for i := range k {
		on[i] = u.call("is_not_distinct_from", requiredBoolean, fieldExpr(i), fieldExpr(k+i))
	}
	lj := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
		Common: direct(), Left: u.copyD(d), Right: agg, Expression: u.and(on), Type: substraitpb.JoinRel_JOIN_TYPE_LEFT}}}, k+k+n)
	vals := make([]*substraitpb.Expression, len(measures))
	for i, m := range measures {
		fn := m.GetMeasure()
		name, _, _ := strings.Cut(u.funcs[fn.GetFunctionReference()], ":")
		col := fieldExpr(k + k + i)
		switch {
		case name == "count":
			zero, ok := zeroLiteral(fn.GetOutputType())
			if !ok {
				return nil, unsupportedAt("expression", fmt.Sprintf("%s: measures[%d]", path, i), "count of output type %v", fn.GetOutputType())
			}
			col = u.call("coalesce", fn.GetOutputType(), col, zero)
		case !nullOnEmpty[name]:
			return nil, unsupportedAt("expression", fmt.Sprintf("%s: measures[%d]", path, i), "aggregate %s over a correlated input (its value over no rows is not known to be NULL)", name)
		}
		vals[i] = col
	}
	// D's columns, then the measures' values (no keys: ungrouped).
	p := &substraitpb.ProjectRel{Input: lj, Expressions: vals}
	orig := func(i int) int { return k + k + n + i }
	p.Common = depCommon(d, a.GetCommon(), n, orig)
	return u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Project{Project: p}}, k+u.width(s)), nil
}

// depFetch is D ⋈dep fetch: the rows of each D row numbered in the
// order of the sort under the fetch (row_number() over a partition by
// D's columns), those from offset+1 to offset+count kept (DuckDB's
// rewrite of a correlated LIMIT). A project between the fetch and the
// sort computes per row: it moves above the fetch first.
func (u *unnester) depFetch(d *domain, s *substraitpb.Rel, f *substraitpb.FetchRel, path string) (*substraitpb.Rel, error) {
	k := d.k
	if f.GetOffsetExpr() != nil || f.GetCountExpr() != nil {
		return nil, unsupportedAt("expression", path, "outer reference under a fetch with computed offset or count")
	}
	if p := f.GetInput().GetProject(); p != nil {
		if f.GetCommon().GetEmit() != nil {
			return nil, unsupportedAt("expression", path, "outer reference under a fetch with an emit over a project")
		}
		inner := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Fetch{Fetch: &substraitpb.FetchRel{
			Common: direct(), Input: p.GetInput(), OffsetMode: f.GetOffsetMode(), CountMode: f.GetCountMode()}}}, u.width(p.GetInput()))
		moved := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Project{Project: &substraitpb.ProjectRel{
			Common: p.GetCommon(), Input: inner, Expressions: p.GetExpressions()}}}, u.width(s))
		return u.dep(d, moved, path)
	}
	in := f.GetInput()
	var sorts []*substraitpb.SortField
	if so := in.GetSort(); so != nil && so.GetCommon().GetEmit() == nil {
		sorts, in = so.GetSorts(), so.GetInput()
	}
	win := u.width(in)
	x, err := u.dep(d, in, path+".input")
	if err != nil {
		return nil, err
	}
	shift := func(i int) int { return i + k }
	ws, err := u.depSorts(d, sorts, shift, path+".input.sort")
	if err != nil {
		return nil, err
	}
	parts := make([]*substraitpb.Expression, k)
	for i := range parts {
		parts[i] = fieldExpr(i)
	}
	i64 := &substraitpb.Type{Kind: &substraitpb.Type_I64_{I64: &substraitpb.Type_I64{Nullability: substraitpb.Type_NULLABILITY_REQUIRED}}}
	rn := &substraitpb.Expression{RexType: &substraitpb.Expression_WindowFunction_{WindowFunction: &substraitpb.Expression_WindowFunction{
		FunctionReference: u.anchor("row_number"), OutputType: i64, Partitions: parts, Sorts: ws,
		Phase:      substraitpb.AggregationPhase_AGGREGATION_PHASE_INITIAL_TO_RESULT,
		Invocation: substraitpb.AggregateFunction_AGGREGATION_INVOCATION_ALL,
		BoundsType: substraitpb.Expression_WindowFunction_BOUNDS_TYPE_ROWS,
		LowerBound: &substraitpb.Expression_WindowFunction_Bound{Kind: &substraitpb.Expression_WindowFunction_Bound_Unbounded_{Unbounded: &substraitpb.Expression_WindowFunction_Bound_Unbounded{}}},
		UpperBound: &substraitpb.Expression_WindowFunction_Bound{Kind: &substraitpb.Expression_WindowFunction_Bound_CurrentRow_{CurrentRow: &substraitpb.Expression_WindowFunction_Bound_CurrentRow{}}},
	}}}
	wp := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Project{Project: &substraitpb.ProjectRel{
		Common: direct(), Input: x, Expressions: []*substraitpb.Expression{rn}}}}, k+win+1)
	lit := func(v int64) *substraitpb.Expression {
		return &substraitpb.Expression{RexType: &substraitpb.Expression_Literal_{Literal: &substraitpb.Expression_Literal{
			LiteralType: &substraitpb.Expression_Literal_I64{I64: v}}}}
	}
	rnCol := fieldExpr(k + win)
	var keep []*substraitpb.Expression
	if off := f.GetOffset(); off > 0 {
		keep = append(keep, u.call("gt", requiredBoolean, rnCol, lit(off)))
	}
	if f.GetCountMode() != nil && f.GetCount() >= 0 { //nolint:staticcheck // count -1: all rows (normalize.go)
		keep = append(keep, u.call("lte", requiredBoolean, rnCol, lit(f.GetOffset()+f.GetCount()))) //nolint:staticcheck
	}
	common := depCommon(d, f.GetCommon(), win, shift)
	if common.GetEmit() == nil {
		common = &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: iota32(0, k+win)}}}
	}
	out := &substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: &substraitpb.FilterRel{
		Common: common, Input: wp, Condition: u.and(keep)}}}
	return u.made(out, k+u.width(s)), nil
}

// iota32u is 0, 1, ..., n-1.
func iota32u(n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = uint32(i)
	}
	return out
}

// isGrouped reports an aggregate with grouping keys or several
// groupings (one without keys has a row over no input).
func isGrouped(a *substraitpb.AggregateRel) bool {
	grouped := len(a.GetGroupingExpressions()) > 0 || len(a.GetGroupings()) > 1
	for _, g := range a.GetGroupings() {
		grouped = grouped || len(g.GetGroupingExpressions()) > 0 || len(g.GetExpressionReferences()) > 0
	}
	return grouped
}

// measuresReadOuter reports a measure of a reading an outer query.
func measuresReadOuter(a *substraitpb.AggregateRel) bool {
	for _, m := range a.GetMeasures() {
		if hasOuterRef(m) {
			return true
		}
	}
	return false
}
