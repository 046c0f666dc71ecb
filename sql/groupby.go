package sql

import (
	"errors"
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// aggregateNames are the aggregate functions the SQL surface lowers.
var aggregateNames = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true,
	"bool_and": true, "bool_or": true, "string_agg": true,
	"percentile_cont": true, "percentile_disc": true, "mode": true, // ordered-set: orderedset.go
	"stddev_samp": true, "stddev": true, "stddev_pop": true, // agg_stats.go
	"var_samp": true, "variance": true, "var_pop": true,
	"every": true, "bit_and": true, "bit_or": true, // every is bool_and (pg_aggregate)
}

// grouping is what a scope over an AggregateRel knows of the rows below
// it: the input scope and the group keys over it. An expression equal to a
// key (a grouped column, or a grouped expression like k % 3) refers to the
// key's column; any other use of an input column is an error, as in
// PostgreSQL.
type grouping struct {
	input *scope
	keys  []expr.Expression
	// sets are the grouping sets as indices into keys (nil: a plain
	// GROUP BY, one set of every key); gid is the scope's column of the
	// set id when there are several (-1 otherwise), and marker, with an
	// empty set among them, the expanded input's marker column
	// (groupingsets.go).
	sets   [][]int
	gid    int
	marker expr.Expression
	// targets holds, per key, the SELECT-list item it is (-1: none, an
	// expression PostgreSQL adds as a resjunk target). A key is a target
	// entry, PostgreSQL's ressortgroupref: two items of one expression
	// that GROUP BY both names are two keys, and a grouping set without
	// one of them nulls that item only (groupingsets.go).
	targets []int
	// items are the SELECT list's value nodes, as written: GROUPING's
	// arguments are told apart by them when two keys lower alike
	// (groupingKey).
	items []*pg_query.Node
}

// keyOfTarget is the key SELECT-list item j is (-1: none).
func (g *grouping) keyOfTarget(j int) int {
	for i, t := range g.targets {
		if t == j && j >= 0 {
			return i
		}
	}
	return -1
}

// keyFor is the key an expression over the input refers to (-1: none):
// of the keys equal to e, the first in SELECT-list order, then the
// others. PostgreSQL's Agg input lists the grouped targets in that order
// and setrefs' search_indexed_tlist_for_var takes the first match, so
// c2 in HAVING or in c2 || 'x' reads the first c2 item's key.
func (g *grouping) keyFor(e expr.Expression) int {
	best := -1
	for i, k := range g.keys {
		if !sameExpr(k, e) {
			continue
		}
		if best < 0 || (g.targets[i] >= 0 && (g.targets[best] < 0 || g.targets[i] < g.targets[best])) {
			best = i
		}
	}
	return best
}

// subqueryKeys reports a group key that holds a subquery.
func (g *grouping) subqueryKeys() bool {
	return slices.ContainsFunc(g.keys, hasSubquery)
}

// aggregate lowers GROUP BY, the aggregate calls and HAVING: an
// AggregateRel whose output is the group keys then one measure per call,
// under a Filter for HAVING, and the scope over it.
func (l *lowerer) aggregate(rel plan.Rel, sc *scope, s *pg_query.SelectStmt, calls []*pg_query.FuncCall) (plan.Rel, *scope, error) {
	out := &scope{aggs: map[*pg_query.FuncCall]int32{}, group: &grouping{input: sc, gid: -1}, corr: sc.corr, outer: sc.outer}
	keys, targets, names, sets, multi, err := l.groupingSets(s, sc) // groupingsets.go
	if err != nil {
		return nil, nil, err
	}
	out.group.keys, out.group.targets = keys, targets
	for _, t := range s.TargetList {
		out.group.items = append(out.group.items, t.GetResTarget().GetVal())
	}
	if multi {
		out.group.sets = sets
	}
	if len(sets) == 1 {
		// One set: a plain GROUP BY of its keys (GROUPING SETS ((a, b))
		// is GROUP BY a, b; GROUP BY () the aggregate over all rows).
		keys = make([]expr.Expression, len(sets[0]))
		out.group.targets = make([]int, len(sets[0]))
		for i, k := range sets[0] {
			keys[i] = out.group.keys[k]
			out.group.targets[i] = targets[k]
		}
		setNames := make([]string, len(sets[0]))
		for i, k := range sets[0] {
			setNames[i] = names[k]
		}
		names = setNames
		out.group.keys = keys
		if multi {
			out.group.sets = [][]int{make([]int, len(keys))}
			for i := range keys {
				out.group.sets[0][i] = i
			}
		}
	}
	for i, k := range out.group.keys {
		out.cols = append(out.cols, column{name: names[i], typ: k.GetType()})
	}
	groupBy := out.group.keys
	marker := -1
	if len(sets) > 1 {
		// Several sets: one aggregate over the expanded input, grouping
		// by the nulled keys and the set id (groupingsets.go).
		w := len(sc.cols)
		var gid int
		if rel, marker, gid, err = l.expandForSets(rel, w, keys, sets); err != nil {
			return nil, nil, err
		}
		rt := rel.RecordType()
		groupBy = nil
		for i := range keys {
			ref, err := expr.NewRootFieldRef(expr.NewStructFieldRef(int32(gid+1+i)), &rt)
			if err != nil {
				return nil, nil, err
			}
			groupBy = append(groupBy, ref)
			out.cols[i].typ = ref.GetType()
		}
		gref, err := expr.NewRootFieldRef(expr.NewStructFieldRef(int32(gid)), &rt)
		if err != nil {
			return nil, nil, err
		}
		groupBy = append(groupBy, gref)
		out.group.gid = len(out.cols)
		out.cols = append(out.cols, column{name: "grouping_set", typ: gref.GetType(), hidden: true})
		if marker >= 0 {
			mref, err := expr.NewRootFieldRef(expr.NewStructFieldRef(int32(marker)), &rt)
			if err != nil {
				return nil, nil, err
			}
			out.group.marker = mref
		}
	}
	args := *sc
	args.noAggs = "in aggregate arguments"
	var measures []plan.AggRelMeasure
	var fns []*expr.AggregateFunction // measures' calls, for havingDropsCalls
	for _, fc := range calls {
		m, err := l.measure(fc, &args)
		if err != nil {
			return nil, nil, err
		}
		flt, err := l.aggFilter(fc, sc)
		if err != nil {
			return nil, nil, err
		}
		if mk := out.group.marker; mk != nil {
			// The rows the expansion adds for an empty set over an empty
			// input are no input rows: every aggregate skips them.
			isReal, err := l.call(urnComparison, "is_not_null", fc.Location, mk)
			if err != nil {
				return nil, nil, err
			}
			if flt == nil {
				flt = isReal
			} else if flt, err = l.call(urnBoolean, "and", fc.Location, isReal, flt); err != nil {
				return nil, nil, err
			}
		}
		out.aggs[fc] = int32(len(out.cols))
		out.cols = append(out.cols, column{name: funcName(fc), typ: m.GetType()})
		measures, fns = append(measures, l.b.Measure(m, flt)), append(fns, m)
	}
	var groups [][]expr.Expression
	if len(groupBy) > 0 {
		groups = append(groups, groupBy)
	}
	agg, err := l.b.AggregateExprs(rel, measures, groups...)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: aggregate: %w", ErrInvalid, err)
	}
	if s.HavingClause != nil {
		hs := *out
		hs.noWins = "window functions are not allowed in HAVING"
		having, err := l.filter(agg, &hs, s.HavingClause)
		if err != nil {
			return nil, nil, err
		}
		// A HAVING that folds to FALSE or NULL (sum(k) <> NULL, folded
		// by eval_const_expressions before subquery_planner's HAVING
		// move) is moved into the WHERE unless grouping sets keep it
		// (havingmove.go): a FALSE filter under the aggregate gates its
		// input (plan/filter.go, PostgreSQL's One-Time Filter: false
		// below the Agg). The HAVING itself never gates.
		f, folded := having.(*plan.FilterRel)
		folded = folded && f.Input() == agg && constFalse(f.Condition())
		if folded && l.havingStaysForSets(s, sc) {
			// Kept in the HAVING under grouping sets, every row is
			// aggregated, but an aggregate the folded HAVING no longer
			// names is gone from PostgreSQL's plan (its Agg computes
			// only the aggregates its target list and quals reference),
			// so its argument raises nothing (sum(k / 0) > NULL:
			// difftest seed 20261235 case 131037). Its measure stays,
			// to keep the columns, over NULL constants.
			dropped, err := l.havingDropsCalls(s, calls, measures, fns)
			if err != nil {
				return nil, nil, err
			}
			if dropped != nil {
				if agg, err = l.b.AggregateExprs(rel, dropped, groups...); err != nil {
					return nil, nil, fmt.Errorf("%w: aggregate: %w", ErrInvalid, err)
				}
				if having, err = l.b.Filter(agg, f.Condition()); err != nil {
					return nil, nil, fmt.Errorf("%w: filter: %w", ErrInvalid, err)
				}
			}
			return having, out, nil
		}
		if folded {
			gated, err := l.b.Filter(rel, f.Condition())
			if err != nil {
				return nil, nil, fmt.Errorf("%w: filter: %w", ErrInvalid, err)
			}
			if agg, err = l.b.AggregateExprs(gated, measures, groups...); err != nil {
				return nil, nil, fmt.Errorf("%w: aggregate: %w", ErrInvalid, err)
			}
			if having, err = l.b.Filter(agg, f.Condition()); err != nil {
				return nil, nil, fmt.Errorf("%w: filter: %w", ErrInvalid, err)
			}
		}
		return having, out, nil
	}
	return agg, out, nil
}

// havingDropsCalls is measures with each aggregate call written only in
// s's HAVING (which folded to a constant) over NULL constants of its
// arguments' types and without its FILTER; nil when there is none.
// PostgreSQL folds the HAVING's constants while planning, before its Agg
// forgets the call, so a constant argument or FILTER that raises still
// raises (count(DISTINCT 2147483646::numeric(8,2)) > NULL: difftest seed
// 20261239 case 111647).
func (l *lowerer) havingDropsCalls(s *pg_query.SelectStmt, calls []*pg_query.FuncCall, measures []plan.AggRelMeasure, fns []*expr.AggregateFunction) ([]plan.AggRelMeasure, error) {
	inHaving := map[*pg_query.FuncCall]bool{}
	for _, fc := range aggregateCalls(s.HavingClause) {
		inHaving[fc] = true
	}
	var out []plan.AggRelMeasure
	for i, fc := range calls {
		if !inHaving[fc] {
			continue
		}
		if out == nil {
			out = slices.Clone(measures)
		}
		if f := measures[i].Filter(); f != nil {
			if err := raisingConstant(f); err != nil {
				return nil, err
			}
		}
		m := fns[i].Clone()
		for j := range m.NArgs() {
			if a, ok := m.Arg(j).(expr.Expression); ok {
				if err := raisingConstant(a); err != nil {
					return nil, err
				}
				m.SetArg(j, expr.NewNullLiteral(a.GetType().WithNullability(types.NullabilityNullable)))
			}
		}
		out[i] = l.b.Measure(m, nil)
	}
	return out, nil
}

// groupKey resolves one GROUP BY item the PostgreSQL way
// (findTargetlistEntrySQL92): an integer is a SELECT-list position, a
// bare name an input column or else an output name, anything else an
// expression over the input. It returns the item's value and the
// SELECT-list position it named (-1: an expression, which the caller
// matches to the items, findTargetlistEntrySQL99).
func (l *lowerer) groupKey(n *pg_query.Node, sc *scope, targets []*pg_query.Node) (value, int, error) {
	gs := *sc
	gs.noAggs = "in GROUP BY"
	target := func(i int, loc int32) (value, error) {
		rt := targets[i].GetResTarget()
		if cr := rt.GetVal().GetColumnRef(); cr != nil {
			if _, _, star, _ := l.refName(cr); star {
				return value{}, fmt.Errorf("%w: GROUP BY position %d is a *%s", ErrUnsupported, i+1, l.src.at(loc))
			}
		}
		l.markScalars(rt.GetVal())
		v, err := l.expr(rt.GetVal(), &gs)
		if err == nil && rt.Name != "" {
			v.name = rt.Name
		}
		return v, err
	}
	switch x := n.Node.(type) {
	case *pg_query.Node_GroupingSet:
		return value{}, -1, fmt.Errorf("%w: GROUPING SETS, ROLLUP and CUBE%s", ErrUnsupported, l.src.at(x.GroupingSet.Location))
	case *pg_query.Node_AConst:
		iv, ok := x.AConst.Val.(*pg_query.A_Const_Ival)
		if !ok {
			return value{}, -1, fmt.Errorf("%w: GROUP BY a constant other than a position%s", ErrUnsupported, l.src.at(x.AConst.Location))
		}
		if iv.Ival.Ival < 1 || int(iv.Ival.Ival) > len(targets) {
			return value{}, -1, fmt.Errorf("%w: GROUP BY position %d is not in select list%s", ErrInvalid, iv.Ival.Ival, l.src.at(x.AConst.Location))
		}
		i := int(iv.Ival.Ival) - 1
		v, err := target(i, x.AConst.Location)
		return v, i, err
	case *pg_query.Node_ColumnRef:
		v, err := l.expr(n, &gs)
		if !errors.Is(err, ErrUnknownColumn) || len(x.ColumnRef.Fields) != 1 {
			return v, -1, err
		}
		name := x.ColumnRef.Fields[0].GetString_().GetSval()
		for i, t := range targets {
			if t.GetResTarget().GetName() == name {
				v, err := target(i, x.ColumnRef.Location)
				return v, i, err
			}
		}
		return v, -1, err
	}
	// A scalar subquery in a grouping expression is evaluated per input
	// row, as PostgreSQL's SubPlan in the Agg's input target list: the
	// optimizer moves it into a project under the aggregate
	// (optimize.aggregateSubqueries), correlated or not.
	l.markScalars(n)
	v, err := l.expr(n, &gs)
	return v, -1, err
}

// measure lowers one aggregate call over the input scope.
func (l *lowerer) measure(fc *pg_query.FuncCall, args *scope) (*expr.AggregateFunction, error) {
	name := funcName(fc)
	if orderedSetNames[name] || fc.AggWithinGroup {
		return l.orderedSetMeasure(fc, args) // orderedset.go
	}
	if len(fc.AggOrder) > 0 || fc.Over != nil || fc.AggWithinGroup || fc.FuncVariadic {
		return nil, fmt.Errorf("%w: ORDER BY or OVER in an aggregate%s", ErrUnsupported, l.src.at(fc.Location))
	}
	var fargs []expr.Expression
	if fc.AggStar {
		if name != "count" {
			return nil, fmt.Errorf("%w: %s(*)%s", ErrInvalid, name, l.src.at(fc.Location))
		}
	} else {
		for i, a := range fc.Args {
			v, err := l.expr(a, args)
			if err != nil {
				return nil, err
			}
			k := l.defaultKind(v)
			if uk, ok := unknownArgKind(name, v); ok {
				k = uk
			}
			if name == "string_agg" {
				k = kindString // string_agg(text, text): literals are text
			}
			if name == "count" && i == 0 && v.how != typed {
				k = kindString
			}
			e, err := l.coerce(v, k)
			if err != nil {
				return nil, err
			}
			fargs = append(fargs, e)
		}
	}
	if name == "count" && len(fargs) == 0 && !fc.AggStar {
		return nil, fmt.Errorf("%w: count() needs * or an argument%s", ErrInvalid, l.src.at(fc.Location))
	}
	var f *expr.AggregateFunction
	var err error
	if sqrt, sample, ok := substraitfn.StatsForm(name); ok && len(fargs) == 1 {
		f, err = substraitfn.StatsAggregate(l.b.GetExprBuilder().Reg, sqrt, sample, fc.AggDistinct, fargs[0])
	} else {
		if name == "every" {
			name = "bool_and" // PostgreSQL's every is bool_and's SQL-standard name
		}
		f, err = substraitfn.Aggregate(l.b.GetExprBuilder().Reg, name, fc.AggDistinct, fargs...)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w%s", ErrType, err, l.src.at(fc.Location))
	}
	return f, nil
}

// aggFilter lowers an aggregate's FILTER (WHERE cond) over the input
// scope: the Measure's filter (nil without one), a boolean, where
// aggregates are not allowed, as in PostgreSQL's transformAggregateCall
// (EXPR_KIND_FILTER). The planner gates the call's rows by it
// (plan/aggregate.go).
func (l *lowerer) aggFilter(fc *pg_query.FuncCall, sc *scope) (expr.Expression, error) {
	if fc.AggFilter == nil {
		return nil, nil
	}
	fs := *sc
	fs.noAggs = "in FILTER"
	fs.noWins = "window functions are not allowed in FILTER"
	v, err := l.expr(fc.AggFilter, &fs)
	if err != nil {
		return nil, err
	}
	return l.coerce(v, kindBool)
}

// groupedExpr is the lookup of a grouped scope: n, lowered over the input,
// equals group key i; it then refers to that key's column. Nodes that hold
// an aggregate or a parameter, or no column at all, are left to the normal
// lowering (a trial lowering of a parameter would fix its type).
func (l *lowerer) groupedExpr(n *pg_query.Node, s *scope) (value, bool) {
	if s.group == nil || len(s.group.keys) == 0 {
		return value{}, false
	}
	cols, blocked := trialShape(n, s.group.subqueryKeys())
	// Over grouping sets a key with no column (GROUP BY ROLLUP (1) of a
	// constant item) is still a key: NULL in the sets without it, as
	// PostgreSQL's grouped Var is; elsewhere it equals its value.
	if (!cols && s.group.sets == nil) || blocked {
		return value{}, false
	}
	in := *s.group.input
	in.noAggs = "in GROUP BY"
	v, err := l.expr(n, &in)
	if err != nil {
		return value{}, false
	}
	e, err := l.settle(v)
	if err != nil {
		return value{}, false
	}
	if i := s.group.keyFor(e); i >= 0 {
		ref, err := s.ref(i)
		if err != nil {
			return value{}, false
		}
		return value{e: ref, loc: v.loc, name: v.name}, true
	}
	return value{}, false
}

// ownKey is SELECT-list item j's value v over a scope grouped by several
// sets when the item is a key itself: its own key's column, not that of
// the first key equal to it (groupedExpr). PostgreSQL's setrefs matches a
// target with a ressortgroupref by that ref
// (search_indexed_tlist_for_sortgroupref), so in SELECT c2, c2 ...
// GROUPING SETS ((1), (2)) each item is NULL in the other's set. Under
// one set every key is present and equal keys hold equal values.
// It also returns the key's expression over the input (nil when v is
// unchanged), which PostgreSQL's equal() of target entries compares.
func (l *lowerer) ownKey(v value, j int, s *scope) (value, expr.Expression, error) {
	if s.group == nil || s.group.sets == nil {
		return v, nil, nil
	}
	k := s.group.keyOfTarget(j)
	if k < 0 {
		return v, nil, nil
	}
	ref, err := s.ref(k)
	if err != nil {
		return value{}, nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	// v is already some key's column (groupedExpr, the first key equal
	// to the item); the item's own key is the one to read.
	v.e, v.how = ref, typed
	return v, s.group.keys[k], nil
}

// trialShape tells whether n names a column and whether a trial lowering
// of it over the input is blocked: it holds an aggregate, a parameter
// (the trial would fix the parameter's type) or a subquery, unless subs
// (some group key holds a subquery, which the item may equal: GROUP BY
// (SELECT u.y FROM u WHERE u.k = t.a) and the same in the SELECT list,
// as PostgreSQL's equal() matches them).
func trialShape(n *pg_query.Node, subs bool) (cols, blocked bool) {
	if subs {
		// A subquery's own aggregates and columns are its own: the
		// trial lowers it whole, so only its operand is looked at here.
		n = proto.Clone(n).(*pg_query.Node)
		walkNodes(n.ProtoReflect(), func(m protoreflect.Message) bool {
			if sl, ok := m.Interface().(*pg_query.SubLink); ok {
				sl.Subselect, cols = nil, true
			}
			return true
		})
	}
	walkNodes(n.ProtoReflect(), func(m protoreflect.Message) bool {
		switch x := m.Interface().(type) {
		case *pg_query.ColumnRef:
			cols = true
		case *pg_query.ParamRef:
			// A long IN list's placeholder stands for constants
			// (constlist.go), not for a caller's parameter.
			blocked = blocked || x.Number < hiddenListBase
		case *pg_query.SubLink:
			blocked = !subs
		case *pg_query.FuncCall:
			blocked = blocked || aggregateNames[funcName(x)] || x.Over != nil
		}
		return !blocked
	})
	return cols, blocked
}

// walkNodes calls f on every message under m (m included) until f returns
// false.
func walkNodes(m protoreflect.Message, f func(protoreflect.Message) bool) bool {
	if !f(m) {
		return false
	}
	ok := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			for i := range v.List().Len() {
				if ok = walkNodes(v.List().Get(i).Message(), f); !ok {
					return false
				}
			}
			return true
		}
		ok = walkNodes(v.Message(), f)
		return ok
	})
	return ok
}
