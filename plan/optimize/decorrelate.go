package optimize

import (
	"fmt"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// Subquery expressions (Expression.Subquery) from outside producers.
// Isthmus writes TPC-H's IN, EXISTS and scalar subqueries as subquery
// expressions, correlated ones reaching the outer query through
// FieldReference.outer_reference (steps_out 1: the input row of the
// relation whose expression holds the subquery). substrait-go v8.1.1
// decodes them only with a converter the caller registers, and then as
// opaque expressions no planned relation can evaluate; the engine has no
// subquery operator. So the optimizer's first pass, Decorrelate, runs on
// the proto before substrait-go reads the plan, and rewrites every
// subquery into joins the planner runs:
//
//	filter conjunct                        becomes (input ⋈ S on ...)
//	EXISTS (S)            / NOT EXISTS     LEFT SEMI / LEFT ANTI on true
//	x IN (S)                               LEFT SEMI on x = y
//	x NOT IN (S)                           LEFT ANTI on x = y OR x IS NULL OR y IS NULL
//	x op ANY (S)          / NOT            LEFT SEMI on x op y / LEFT ANTI on nullOr(x op y)
//	x op ALL (S)          / NOT            LEFT ANTI on nullOr(x !op y) / LEFT SEMI on x !op y
//	EXISTS, IN, op ANY/ALL as a value       LEFT MARK (decorrelate_mark.go)
//	(S) as a value, in a filter, a project or a sort key:
//	  uncorrelated                         LEFT SINGLE on true; the value is S's column
//	  correlated, S plain                  LEFT SINGLE on the correlation
//	  correlated, S an ungrouped aggregate LEFT on the correlation keys, S grouped by them
//	    (by other than equalities: LEFT on the outer values, S over their
//	    distinct values grouped by them, decorrelate_dependent.go)
//	an inner join's condition              a filter over the join on true
//	an outer join's condition              the pairs' filter, outer joined back
//	                                       (decorrelate_outerjoin.go)
//	an aggregate's measure or grouping     a project under the aggregate
//
// (nullOr(c) is c OR x IS NULL OR y IS NULL: PostgreSQL's NULL rule for
// NOT IN and ALL spelled as a join condition; for one key the planner
// runs it as the NULL-aware hash anti join, notInKey.) The rewritten
// filter keeps its other conjuncts, and an emit mapping drops the
// columns a single join added, so every relation keeps its width and
// the plan around it is untouched.
//
// Decorrelation (the SQL front end's subqueries come here too, all as
// subquery expressions: it builds no join for one): a correlated
// subquery is flattened when it is Filters and Projects over a relation without
// outer references (flatten); a filter conjunct that references the
// outer query becomes part of the join condition, the others filter the
// subquery. A correlated scalar subquery over an ungrouped aggregate
// (TPC-H Q2, Q17, Q20) is grouped by the inner sides of its correlation
// when it is equalities inner = outer (else by the outer rows' distinct
// values it is joined with: decorrelate_dependent.go); its value is computed over the
// LEFT join's columns, so an outer row without a group sees what the
// aggregate gives over no rows: NULL, or 0 for count (a coalesce). A
// correlation anywhere else (in a join, a grouped aggregate, a fetch, a
// set operation) is a dependent join unnested against the distinct
// correlation values (decorrelate_general.go), as is a LATERAL join
// (decorrelate_lateral.go); a reference n > 1 levels out is n - 1 levels
// out once its subquery is a join, unnested with the query around. A
// join's post-join filter with a subquery is a filter over the join
// (postJoinFilter). An outer reference inside a
// right or full join, and UNIQUE are refused with a *PathError naming
// the expression's path (plan reports it as ErrUnsupported).

// Decorrelate rewrites the subquery expressions of p into joins, in
// place. widths holds the output width (after its emit mapping) of every
// relation of p, as the Substrait ingest's validation computed it; the
// relations Decorrelate makes are added to it. p must be valid (every
// field reference in range, every outer reference to an enclosing query):
// Decorrelate checks only what decides whether a subquery can become a
// join, and its errors are *PathError (an unsupported subquery, named by
// its path, or a malformed one the validation could not see). The plan
// it leaves holds no subquery expression and no outer reference; the
// caller checks it again before reading it. st (nil: nothing known)
// gives the table sizes the IN/EXISTS push to one item needs to tell
// the probe item (semipush.go).
func Decorrelate(p *substraitpb.Plan, widths map[*substraitpb.Rel]int, st Stats) error {
	var root *substraitpb.RelRoot
	for _, r := range p.GetRelations() {
		if t, ok := r.GetRelType().(*substraitpb.PlanRel_Root); ok && root == nil {
			root = t.Root
		}
	}
	if root == nil {
		return invalidAt("relations", "plan has no root relation")
	}
	u := &unnester{p: p, widths: widths, st: st, anchors: map[string]uint32{}}
	u.declarations()
	in, err := u.rel(root.GetInput(), "root.input")
	if err != nil {
		return err
	}
	root.Input = in
	u.shareScalarAggregates(in) // scalaragg.go
	return nil
}

// unnester holds the plan being rewritten and what it knows of it.
type unnester struct {
	p       *substraitpb.Plan
	widths  map[*substraitpb.Rel]int // each relation's output width
	st      Stats                    // table sizes, for the probe item (semipush.go); may be nil
	funcs   map[uint32]string        // function anchor -> declared name
	urns    map[uint32]string        // function anchor -> URN of its extension
	anchors map[string]uint32        // function name -> anchor (anchor)
	// outerRefs remembers which finished relations hold an outer
	// reference (relHasOuterRef).
	outerRefs map[*substraitpb.Rel]bool
}

// declarations reads the plan's function declarations into funcs and
// urns.
func (u *unnester) declarations() {
	urns := map[uint32]string{}
	for _, e := range u.p.GetExtensionUrns() {
		urns[e.GetExtensionUrnAnchor()] = e.GetUrn()
	}
	u.funcs, u.urns = map[uint32]string{}, map[uint32]string{}
	for _, d := range u.p.GetExtensions() {
		if f := d.GetExtensionFunction(); f != nil {
			u.funcs[f.GetFunctionAnchor()] = f.GetName()
			u.urns[f.GetFunctionAnchor()] = urns[f.GetExtensionUrnReference()]
		}
	}
}

// width is r's output width (recorded by the validation, or by
// Decorrelate for the relations it made).
func (u *unnester) width(r *substraitpb.Rel) int { return u.widths[r] }

// made records a relation Decorrelate made, of output width w.
func (u *unnester) made(r *substraitpb.Rel, w int) *substraitpb.Rel {
	u.widths[r] = w
	return r
}

// rel rewrites the subqueries in r and below it; the result has r's
// width.
func (u *unnester) rel(r *substraitpb.Rel, path string) (*substraitpb.Rel, error) {
	var err error
	child := func(c **substraitpb.Rel, p string) {
		if err == nil && *c != nil {
			*c, err = u.rel(*c, p)
		}
	}
	// Expressions of the relations not rewritten below (a read, a semi
	// or anti join's condition):
	// a subquery there has no join to become.
	refuse := func(m proto.Message, kind, path string) error {
		if hasSubquery(m) {
			return unsupportedAt("expression", path, "subquery in a %s's expressions (unnested in filters, projects, sorts, aggregates and the conditions of inner, LEFT, RIGHT and FULL joins)", kind)
		}
		return nil
	}
	switch t := r.GetRelType().(type) {
	case *substraitpb.Rel_Read:
		return r, refuse(t.Read, "ReadRel", path+".read")
	case *substraitpb.Rel_Filter:
		child(&t.Filter.Input, path+".filter.input")
		if err != nil || !hasSubquery(t.Filter.GetCondition()) {
			return r, err
		}
		return u.filter(r, t.Filter, path+".filter")
	case *substraitpb.Rel_Project:
		child(&t.Project.Input, path+".project.input")
		if err != nil || !hasSubquery(t.Project) {
			return r, err
		}
		return r, u.project(t.Project, path+".project")
	case *substraitpb.Rel_Sort:
		child(&t.Sort.Input, path+".sort.input")
		if err != nil || !hasSubquery(t.Sort) {
			return r, err
		}
		return r, u.sort(t.Sort, path+".sort")
	case *substraitpb.Rel_Fetch:
		child(&t.Fetch.Input, path+".fetch.input")
	case *substraitpb.Rel_Aggregate:
		child(&t.Aggregate.Input, path+".aggregate.input")
		if err == nil && hasSubquery(t.Aggregate) {
			err = u.aggregateSubqueries(t.Aggregate, path+".aggregate")
		}
	case *substraitpb.Rel_Join:
		if substraitfn.IsLateralJoin(t.Join.GetAdvancedExtension()) {
			return u.lateral(r, t.Join, path+".join") // decorrelate_lateral.go
		}
		if hasSubquery(t.Join.GetPostJoinFilter()) {
			return u.rel(u.postJoinFilter(r, t.Join), path)
		}
		child(&t.Join.Left, path+".join.left")
		child(&t.Join.Right, path+".join.right")
		if err == nil && t.Join.GetType() == substraitpb.JoinRel_JOIN_TYPE_INNER && hasSubquery(t.Join) {
			return u.innerJoinSubqueries(r, t.Join, path+".join")
		}
		if err == nil && hasSubquery(t.Join) {
			var done bool
			if done, err = u.outerJoinSubqueries(r, t.Join, path+".join"); done || err != nil {
				return r, err // decorrelate_outerjoin.go
			}
		}
		if err == nil {
			err = refuse(t.Join, "JoinRel", path+".join")
		}
	case *substraitpb.Rel_Cross:
		child(&t.Cross.Left, path+".cross.left")
		child(&t.Cross.Right, path+".cross.right")
	case *substraitpb.Rel_Set:
		for i := range t.Set.Inputs {
			child(&t.Set.Inputs[i], fmt.Sprintf("%s.set.inputs[%d]", path, i))
		}
	}
	return r, err
}

// postJoinFilter is r, a join whose post-join filter holds a subquery,
// as a filter of that condition over the join without it. Substrait
// applies a post-join filter to the join's output, before its emit, as a
// FilterRel would (after an outer join's NULL extension, unlike the ON
// condition): the filter over the join's whole output, with the join's
// emit, is the same relation, and its subqueries are unnested as any
// filter's (a WHERE over an outer join, which the SQL front end writes
// so).
func (u *unnester) postJoinFilter(r *substraitpb.Rel, j *substraitpb.JoinRel) *substraitpb.Rel {
	n := u.width(j.GetLeft()) + u.width(j.GetRight())
	switch j.GetType() {
	case substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI, substraitpb.JoinRel_JOIN_TYPE_LEFT_ANTI:
		n = u.width(j.GetLeft())
	case substraitpb.JoinRel_JOIN_TYPE_RIGHT_SEMI, substraitpb.JoinRel_JOIN_TYPE_RIGHT_ANTI:
		n = u.width(j.GetRight())
	case substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK:
		n = u.width(j.GetLeft()) + 1
	case substraitpb.JoinRel_JOIN_TYPE_RIGHT_MARK:
		n = u.width(j.GetRight()) + 1
	}
	inner := &substraitpb.JoinRel{Common: direct(), Left: j.GetLeft(), Right: j.GetRight(), Expression: j.GetExpression(),
		Type: j.GetType(), AdvancedExtension: j.GetAdvancedExtension()}
	in := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: inner}}, n)
	return u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: &substraitpb.FilterRel{
		Common: j.GetCommon(), Input: in, Condition: j.GetPostJoinFilter()}}}, u.width(r))
}

// filter rewrites a filter whose condition holds subqueries: its
// [NOT] EXISTS / IN / ANY / ALL conjuncts become semi and anti joins of
// its input, the scalar subqueries in the other conjuncts single (or
// left) joins, and what is left of the condition filters the result.
func (u *unnester) filter(r *substraitpb.Rel, f *substraitpb.FilterRel, path string) (*substraitpb.Rel, error) {
	u.pullCorrelation(f)
	w := u.width(f.GetInput())
	input := f.GetInput()
	// The conjuncts without subqueries filter the input first, so the
	// joins see only the rows they keep (and a filter over a cross
	// product stays one, as the producer wrote it). Those referencing
	// an outer query stay on top, where decorrelating this filter's
	// query (flatten) takes them.
	var plain []*substraitpb.Expression
	var sets, rest []protoConjunct
	for _, c := range u.conjuncts(f.GetCondition(), path+": condition") {
		switch {
		case !hasSubquery(c.e) && !hasOuterRef(c.e):
			plain = append(plain, c.e)
		case u.isSetSubquery(c.e):
			sets = append(sets, c)
		default:
			rest = append(rest, c)
		}
	}
	// IN, EXISTS and scalar subqueries over one item of a join tree
	// filter that item (semipush.go, scalarpush.go).
	if len(sets) > 0 || len(rest) > 0 {
		// The tree may be under a filter of plain conjuncts: the SQL
		// front end leaves a WHERE's scalar-subquery conjuncts above the
		// filter of those over several items (sql/joinorder.go). That
		// filter keeps the tree's columns, so its items are this filter's.
		tree := &input
		if in := input.GetFilter(); in != nil && in.GetCommon().GetEmit() == nil && !hasSubquery(in.GetCondition()) && !hasOuterRef(in.GetCondition()) {
			tree = &in.Input
		}
		if items := u.joinItems(tree); items != nil {
			var err error
			if sets, rest, plain, err = u.pushSets(items, sets, rest, plain); err != nil {
				return nil, err
			}
		}
	}
	cur := input
	if len(plain) > 0 {
		pre := &substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: &substraitpb.FilterRel{
			Common: &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Direct_{Direct: &substraitpb.RelCommon_Direct{}}},
			Input:  cur, Condition: u.and(plain)}}}
		cur = u.made(pre, w)
	}
	var err error
	for _, c := range sets {
		sq, negated := u.setSubquery(c.e)
		if cur, err = u.setJoin(cur, w, sq, negated, c.path); err != nil {
			return nil, err
		}
	}
	wide := w
	for _, c := range rest {
		if cur, wide, err = u.scalars(cur, wide, c.e, c.path); err != nil {
			return nil, err
		}
	}
	common := f.GetCommon()
	if common == nil {
		common = &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Direct_{Direct: &substraitpb.RelCommon_Direct{}}}
	}
	if common.GetEmit() == nil && wide > w {
		common = &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: iota32(0, w)}}}
	}
	if len(rest) == 0 {
		// cur is the last semi or anti join, or the filter of the
		// plain conjuncts, or (every conjunct pushed to an item) the
		// join tree, without an emit (joinItems), of width w: it takes
		// the filter's emit.
		switch t := cur.GetRelType().(type) {
		case *substraitpb.Rel_Join:
			t.Join.Common = common
		case *substraitpb.Rel_Filter:
			t.Filter.Common = common
		case *substraitpb.Rel_Cross:
			t.Cross.Common = common
		}
		return u.made(cur, u.width(r)), nil
	}
	es := make([]*substraitpb.Expression, len(rest))
	for i, c := range rest {
		es[i] = c.e
	}
	out := &substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: &substraitpb.FilterRel{
		Common: common, Input: cur, Condition: u.and(es), AdvancedExtension: f.GetAdvancedExtension()}}}
	return u.made(out, u.width(r)), nil
}

// project rewrites the scalar subqueries of a project's expressions into
// joins of its input; an emit mapping keeps the added columns out of its
// output.
func (u *unnester) project(p *substraitpb.ProjectRel, path string) error {
	w := u.width(p.GetInput())
	cur, wide := p.GetInput(), w
	var err error
	for i, e := range p.GetExpressions() {
		if cur, wide, err = u.scalars(cur, wide, e, fmt.Sprintf("%s: expressions[%d]", path, i)); err != nil {
			return err
		}
	}
	p.Input = cur
	if wide == w {
		return nil
	}
	added := int32(wide - w)
	if p.Common == nil {
		p.Common = &substraitpb.RelCommon{}
	}
	if e := p.Common.GetEmit(); e != nil {
		for i, m := range e.GetOutputMapping() {
			if m >= int32(w) {
				e.OutputMapping[i] = m + added
			}
		}
		return nil
	}
	out := append(iota32(0, w), iota32(wide, len(p.GetExpressions()))...)
	p.Common.EmitKind = &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: out}}
	return nil
}

// sort rewrites the scalar subqueries of a sort's keys into joins of its
// input, as project does (ORDER BY (SELECT ...), which PostgreSQL
// computes as a resjunk column of the target list under its Sort): the
// sort orders the joined rows, and an emit mapping keeps the added
// columns out of its output.
func (u *unnester) sort(s *substraitpb.SortRel, path string) error {
	w := u.width(s.GetInput())
	cur, wide := s.GetInput(), w
	var err error
	for i, f := range s.GetSorts() {
		if cur, wide, err = u.scalars(cur, wide, f.GetExpr(), fmt.Sprintf("%s: sorts[%d].expr", path, i)); err != nil {
			return err
		}
	}
	s.Input = cur
	if wide == w {
		return nil
	}
	if s.Common == nil {
		s.Common = &substraitpb.RelCommon{}
	}
	if s.Common.GetEmit() == nil {
		// The added columns follow the input's: an emit of those.
		s.Common.EmitKind = &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: iota32(0, w)}}
	}
	return nil
}

// iota32 is from, from+1, ... (n of them).
func iota32(from, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(from + i)
	}
	return out
}

// isSetSubquery reports a filter conjunct that setSubquery recognizes.
func (u *unnester) isSetSubquery(e *substraitpb.Expression) bool {
	sq, _ := u.setSubquery(e)
	return sq != nil
}

// setSubquery recognizes a filter conjunct that is an IN, EXISTS or set
// comparison subquery, or not() of one.
func (u *unnester) setSubquery(e *substraitpb.Expression) (*substraitpb.Expression_Subquery, bool) {
	negated := false
	if u.funcName(e) == "not" {
		if args := callArgs(e); len(args) == 1 {
			negated, e = true, args[0]
		}
	}
	sq := e.GetSubquery()
	if sq == nil || sq.GetScalar() != nil {
		return nil, false
	}
	return sq, negated
}

// comparison ops: the function, and the op of the negated comparison.
var (
	cmpFuncs = map[substraitpb.Expression_Subquery_SetComparison_ComparisonOp]string{
		substraitpb.Expression_Subquery_SetComparison_COMPARISON_OP_EQ: "equal",
		substraitpb.Expression_Subquery_SetComparison_COMPARISON_OP_NE: "not_equal",
		substraitpb.Expression_Subquery_SetComparison_COMPARISON_OP_LT: "lt",
		substraitpb.Expression_Subquery_SetComparison_COMPARISON_OP_GT: "gt",
		substraitpb.Expression_Subquery_SetComparison_COMPARISON_OP_LE: "lte",
		substraitpb.Expression_Subquery_SetComparison_COMPARISON_OP_GE: "gte",
	}
	cmpNegated = map[string]string{"equal": "not_equal", "not_equal": "equal", "lt": "gte", "gte": "lt", "gt": "lte", "lte": "gt"}
)

// setJoin joins cur (width w) with the subquery of a filter conjunct: a
// LEFT SEMI or LEFT ANTI join, so the width stays w.
func (u *unnester) setJoin(cur *substraitpb.Rel, w int, sq *substraitpb.Expression_Subquery, negated bool, path string) (*substraitpb.Rel, error) {
	path += ".subquery"
	set, err := setSubqueryOf(sq, path)
	if err != nil {
		return nil, err
	}
	s, xs, fn, all, subPath := set.rel, set.xs, set.fn, set.all, set.path
	_, exists := sq.GetSubqueryType().(*substraitpb.Expression_Subquery_SetPredicate_)
	subplan := keptAsSubPlan(exists, negated, all, correlated(s), xs) // subplanjoin.go
	right, conds, cols, err := u.side(cur, s, w, subPath)
	if err != nil {
		return nil, err
	}
	// x op ANY (S) holds when some row satisfies x op y: a semi join.
	// Its negation, and x op ALL (S) negated inside, hold when no row
	// makes the comparison true or NULL: an anti join on nullOr.
	semi := !negated
	if all {
		semi, fn = negated, cmpNegated[fn]
	}
	for i, x := range xs {
		c := u.call(fn, nullableBoolean, x, cols[i])
		if !semi {
			c = u.nullOr(c, x, cols[i])
		}
		conds = append(conds, c)
	}
	jt := substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI
	if !semi {
		jt = substraitpb.JoinRel_JOIN_TYPE_LEFT_ANTI
	}
	if exists && len(conds) == 0 {
		// An uncorrelated [NOT] EXISTS is PostgreSQL's InitPlan, which
		// reads its subquery up to the first row and stops, so a later
		// row's raising filter never runs (ExecSetParamPlan); the join
		// over no condition (a gate: exec's joinStream) needs no more.
		right = u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Fetch{Fetch: &substraitpb.FetchRel{
			Common: direct(), Input: right, OffsetMode: &substraitpb.FetchRel_Offset{Offset: 0}, CountMode: &substraitpb.FetchRel_Count{Count: 1}}}}, u.width(right))
	}
	j := &substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
		Common: &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Direct_{Direct: &substraitpb.RelCommon_Direct{}}},
		Left:   cur, Right: right, Expression: u.and(conds), Type: jt}}}
	if subplan {
		markSubPlanJoin(j.GetJoin())
	}
	return u.made(j, w), nil
}

// side prepares a subquery s for a join with a query of width w: the
// relation to join, the correlation's join conditions, and s's columns,
// all in the join's field space (the outer query's w columns, then the
// relation's).
func (u *unnester) side(cur, s *substraitpb.Rel, w int, path string) (*substraitpb.Rel, []*substraitpb.Expression, []*substraitpb.Expression, error) {
	s, err := u.rel(s, path)
	if err != nil {
		return nil, nil, nil, err
	}
	if !u.relHasOuterRef(s) {
		cols := make([]*substraitpb.Expression, u.width(s))
		for i := range cols {
			cols[i] = fieldExpr(w + i)
		}
		return s, nil, cols, nil
	}
	f, err := u.flatten(cur, s, w, path)
	if err != nil {
		return nil, nil, nil, err
	}
	return f.base, f.conds, f.cols, nil
}

// scalars rewrites the scalar subqueries in e (an expression over cur,
// of width w) into joins of cur, replacing each by its value; it returns
// the joined relation and its width.
func (u *unnester) scalars(cur *substraitpb.Rel, w int, e *substraitpb.Expression, path string) (*substraitpb.Rel, int, error) {
	for _, s := range subqueriesIn(e, path) {
		sq := s.e.GetSubquery()
		var value *substraitpb.Expression
		var err error
		if sq.GetScalar() == nil {
			// IN, EXISTS or a set comparison as a value: a mark join
			// (decorrelate_mark.go).
			if cur, value, w, err = u.markJoin(cur, w, sq, s.path); err != nil {
				return nil, 0, err
			}
		} else if cur, value, w, err = u.scalar(cur, w, sq.GetScalar().GetInput(), s.path+".subquery.scalar.input"); err != nil {
			return nil, 0, err
		}
		proto.Reset(s.e)
		proto.Merge(s.e, value)
	}
	return cur, w, nil
}

// scalar joins cur (width w) with the scalar subquery s: the joined
// relation, the subquery's value over it, and its width.
func (u *unnester) scalar(cur *substraitpb.Rel, w int, s *substraitpb.Rel, path string) (*substraitpb.Rel, *substraitpb.Expression, int, error) {
	s, err := u.rel(s, path)
	if err != nil {
		return nil, nil, 0, err
	}
	single := func(right *substraitpb.Rel, conds []*substraitpb.Expression, value *substraitpb.Expression) (*substraitpb.Rel, *substraitpb.Expression, int, error) {
		wide := w + u.width(right)
		j := &substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
			Common: &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Direct_{Direct: &substraitpb.RelCommon_Direct{}}},
			Left:   cur, Right: right, Expression: u.and(conds), Type: substraitpb.JoinRel_JOIN_TYPE_LEFT_SINGLE}}}
		// PostgreSQL never pulls a scalar sublink up: it stays a SubPlan
		// (an InitPlan when uncorrelated) over the outer rows in their
		// order (subplanjoin.go; difftest seed 20261231 case 245660).
		markSubPlanJoin(j.GetJoin())
		return u.made(j, wide), value, wide, nil
	}
	if !u.relHasOuterRef(s) {
		return single(s, nil, fieldExpr(w))
	}
	if agg, projects := aggregateUnder(s); agg != nil && !isGrouped(agg.GetAggregate()) && !measuresReadOuter(agg.GetAggregate()) {
		return u.scalarAggregate(cur, w, agg, projects, path)
	}
	f, err := u.flatten(cur, s, w, path)
	if err != nil {
		return nil, nil, 0, err
	}
	if below, _ := refRange(f.cols[0], w); below {
		// The value reads the outer row: general unnesting makes those
		// reads columns of the subquery's side (decorrelate_single.go).
		if f, err = u.unnestGeneral(cur, w, s, path); err != nil {
			return nil, nil, 0, err
		}
		return single(f.base, f.conds, f.cols[0])
	}
	base, value := u.constantValue(f.base, w, f.cols[0]) // decorrelate_single.go
	return single(base, f.conds, value)
}

// (A grouped aggregate, or one whose measures read the outer query, is
// unnested by flatten's general path: decorrelate_general.go.)

// aggregateUnder finds the aggregate under a chain of projects (the
// projects top first), or nil.
func aggregateUnder(s *substraitpb.Rel) (*substraitpb.Rel, []*substraitpb.ProjectRel) {
	var projects []*substraitpb.ProjectRel
	for {
		switch t := s.GetRelType().(type) {
		case *substraitpb.Rel_Project:
			projects = append(projects, t.Project)
			s = t.Project.GetInput()
		case *substraitpb.Rel_Aggregate:
			return s, projects
		default:
			return nil, nil
		}
	}
}

// innerJoinSubqueries rewrites an inner join whose condition (or post-join
// filter) holds subqueries as the filter of that condition over the
// inner join on true, which returns the same rows (PostgreSQL too moves
// an inner join's quals among the WHERE's: distribute_qual_to_rels), and
// decorrelates the filter: a subquery reaching the join's row through
// an outer reference reaches the filter's input row, the same columns.
// The optimizer's join pass puts the condition's plain conjuncts back on
// the join. Outer joins keep the refusal: their condition decides which
// rows are NULL-extended, which no filter above can.
func (u *unnester) innerJoinSubqueries(r *substraitpb.Rel, j *substraitpb.JoinRel, path string) (*substraitpb.Rel, error) {
	cond := j.GetExpression()
	if pf := j.GetPostJoinFilter(); pf != nil {
		cond = u.and([]*substraitpb.Expression{cond, pf})
	}
	inner := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
		Common: &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Direct_{Direct: &substraitpb.RelCommon_Direct{}}},
		Left:   j.GetLeft(), Right: j.GetRight(), Expression: trueExpr(), Type: substraitpb.JoinRel_JOIN_TYPE_INNER,
	}}}, u.width(j.GetLeft())+u.width(j.GetRight()))
	f := &substraitpb.FilterRel{Common: j.GetCommon(), Input: inner, Condition: cond, AdvancedExtension: j.GetAdvancedExtension()}
	return u.filter(u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: f}}, u.width(r)), f, path)
}

// aggregateSubqueries moves the expressions of an aggregate that hold
// subqueries (a measure's argument, sort key or filter, a grouping
// expression: sum(CASE WHEN x IN (S) ...)) into a project under it,
// which is decorrelated as any project (its scalars: single, left and
// mark joins of the aggregate's input), and references their columns
// instead: PostgreSQL evaluates an aggregate's arguments over the input
// rows too, in the same target list its SubPlans run in. A subquery's
// outer references reach the aggregate's input row, the project's input.
func (u *unnester) aggregateSubqueries(a *substraitpb.AggregateRel, path string) error {
	w := u.width(a.GetInput())
	var moved []*substraitpb.Expression
	move := func(e *substraitpb.Expression) {
		if e == nil || !hasSubquery(e) {
			return
		}
		// The expression itself moves (not a copy: the widths of the
		// subqueries' relations are recorded by pointer).
		moved = append(moved, &substraitpb.Expression{RexType: e.RexType})
		e.RexType = fieldExpr(w + len(moved) - 1).RexType
	}
	for _, m := range a.GetMeasures() {
		for _, arg := range m.GetMeasure().GetArguments() {
			move(arg.GetValue())
		}
		for _, s := range m.GetMeasure().GetSorts() {
			move(s.GetExpr())
		}
		move(m.GetFilter())
	}
	for _, g := range a.GetGroupingExpressions() {
		move(g)
	}
	for _, g := range a.GetGroupings() {
		for _, e := range g.GetGroupingExpressions() {
			move(e)
		}
	}
	if hasSubquery(a) {
		return unsupportedAt("expression", path, "subquery in an AggregateRel's expressions other than its measures' arguments, sorts and filters and its grouping expressions")
	}
	p := &substraitpb.ProjectRel{
		Common: &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Direct_{Direct: &substraitpb.RelCommon_Direct{}}},
		Input:  a.GetInput(), Expressions: moved}
	if err := u.project(p, path+".input.project"); err != nil {
		return err
	}
	a.Input = u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Project{Project: p}}, w+len(moved))
	return nil
}

// pullCorrelation moves the conjuncts referencing an outer query of a
// filter directly under f (no emit, no subquery in it: a front end's
// WHERE split into its plain conjuncts and, above them, its subquery
// conjuncts) into f's condition: there they stay on top of the joins f's
// subqueries become, where flatten takes them as the correlation of the
// query f is in, rather than under a join where no correlation is
// decorrelated. The rows are the same: every conjunct filters the same
// input columns, and the joins keep them.
func (u *unnester) pullCorrelation(f *substraitpb.FilterRel) {
	in := f.GetInput().GetFilter()
	if in == nil || in.GetCommon().GetEmit() != nil || hasSubquery(in.GetCondition()) || !hasOuterRef(in.GetCondition()) {
		return
	}
	var local, corr []*substraitpb.Expression
	for _, c := range u.conjuncts(in.GetCondition(), "") {
		if hasOuterRef(c.e) {
			corr = append(corr, c.e)
		} else {
			local = append(local, c.e)
		}
	}
	if len(local) == 0 {
		f.Input = in.GetInput()
	} else {
		in.Condition = u.and(local)
	}
	f.Condition = u.and(append([]*substraitpb.Expression{f.GetCondition()}, corr...))
}
