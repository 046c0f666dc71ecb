package sql

import (
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// output is one SELECT-list column: its expression over the input scope
// and its name.
type output struct {
	e    expr.Expression
	name string
	// written is the item's expression over the input where e is not
	// it: an item that is a key of several grouping sets reads its own
	// key's column (ownKey), and two such items of one expression are
	// still equal target entries to PostgreSQL (ORDER BY c2 over two c2
	// items is not ambiguous). nil: e.
	written expr.Expression
}

// same is PostgreSQL's equal() of two target entries' expressions.
func (o output) same(p output) bool {
	a, b := o.e, p.e
	if o.written != nil && p.written != nil {
		a, b = o.written, p.written
	}
	return sameExpr(a, b)
}

// selectShape rejects the SELECT features we do not lower, by name.
func (l *lowerer) selectShape(s *pg_query.SelectStmt) error {
	checks := []struct {
		bad  bool
		name string
	}{
		{s.IntoClause != nil, "SELECT INTO"},
		{len(s.LockingClause) > 0, "FOR UPDATE/SHARE"},
		{s.LimitOption == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES, "FETCH ... WITH TIES"},
	}
	for _, c := range checks {
		if c.bad {
			return fmt.Errorf("%w: %s", ErrUnsupported, c.name)
		}
	}
	return nil
}

// selectStmt lowers a SELECT (substrait.md §8): Read/Join -> Filter ->
// [Aggregate] -> Project -> Sort -> Fetch. When an ORDER BY key is not one
// of the outputs, the sort goes under the projection instead. want, when
// set, is the kind each output is headed for (the target columns of
// INSERT ... SELECT): an untyped output (NULL, a string literal, a
// parameter) takes that kind, as Postgres resolves them against the
// target, instead of its default.
func (l *lowerer) selectStmt(s *pg_query.SelectStmt, want []kind) (plan.Rel, []string, error) {
	corr := l.corrNext // this SELECT's own, not its FROM subqueries'
	l.corrNext = false
	if s.LimitCount != nil {
		if n, err := l.limitValue(s.LimitCount, "LIMIT"); err == nil && n == 0 {
			l.unpulled++
			defer func() { l.unpulled-- }()
		}
	}
	if s.Op != pg_query.SetOperation_SETOP_NONE && s.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED {
		return l.setOperation(s, want) // setop.go
	}
	if len(s.ValuesLists) > 0 {
		return l.valuesQuery(s) // values.go
	}
	if err := l.selectShape(s); err != nil {
		return nil, nil, err
	}
	pop, err := l.with(s.WithClause) // cte.go
	defer pop()
	if err != nil {
		return nil, nil, err
	}
	// Only this WHERE's lowering sees ownWhere (falsewhere.go): not the
	// HAVING's, nor a subquery's (its selectStmt sets its own).
	saved := l.ownWhere
	defer func() { l.ownWhere = saved }()
	l.ownWhere = nil
	// The HAVING conjuncts PostgreSQL moves into the WHERE (havingmove.go)
	// join it once the FROM's scope is known.
	having := func(fs *scope) []*pg_query.Node {
		add := l.havingForWhere(s, fs)
		if len(add) > 0 {
			l.ownWhere = &ownWhere{where: s.WhereClause}
		}
		return add
	}
	// A subquery's FROM may name the enclosing queries anywhere (a
	// join's ON, a derived table's clauses), as PostgreSQL's
	// colNameToVar searches every level out: the optimizer unnests the
	// references wherever they stand, as it does a LATERAL item's
	// (optimize.Decorrelate, decorrelate_general.go).
	if corr {
		l.lateral++
	}
	savedFrom := l.fromOf
	l.fromOf = s
	rel, sc, where, err := l.fromWhere(s.FromClause, s.WhereClause, having) // joinorder.go
	l.fromOf = savedFrom
	if corr {
		l.lateral--
	}
	if err != nil {
		return nil, nil, err
	}
	if l.ownWhere != nil && l.ownWhere.where != nil {
		l.keepWhereEstimates(rel, sc, l.ownWhere.where) // havingestimate.go
	}
	if where != nil {
		ws := sc
		if corr {
			c := *sc
			c.corr = true
			ws = &c
		}
		if rel, err = l.filter(rel, ws, where); err != nil {
			return nil, nil, err
		}
	}
	l.ownWhere = nil
	// Aggregates: one AggregateRel (groupby.go); the SELECT list, HAVING
	// and ORDER BY are then lowered over its group keys and measures.
	var sortNodes []*pg_query.Node
	for _, sb := range s.SortClause {
		sortNodes = append(sortNodes, sb.GetSortBy().GetNode())
	}
	var targetNodes []*pg_query.Node
	for _, t := range s.TargetList {
		targetNodes = append(targetNodes, t.GetResTarget().GetVal())
	}
	in := sc
	calls := l.ownCalls(aggregateCalls(append(append(targetNodes, sortNodes...), s.HavingClause)...))
	// The aggregates of this query inside its subqueries (outeragg.go).
	for _, fc := range outerAggregates(sc, append(append(targetNodes, sortNodes...), s.HavingClause)...) {
		if l.outerAggs == nil {
			l.outerAggs = map[*pg_query.FuncCall]bool{}
		}
		if !l.outerAggs[fc] {
			l.outerAggs[fc] = true
			calls = append(calls, fc)
		}
	}
	if len(calls) > 0 || len(s.GroupClause) > 0 || s.HavingClause != nil {
		as := sc
		if corr {
			// Its HAVING and GROUP BY may name the enclosing queries
			// too; an aggregate's arguments may not (scope.correlates).
			c := *sc
			c.corr = true
			as = &c
		}
		if rel, in, err = l.aggregate(rel, as, s, calls); err != nil {
			return nil, nil, err
		}
	}
	l.markScalars(append(targetNodes, sortNodes...)...) // subquery.go
	// Window functions run over the rows HAVING kept (window.go).
	if calls := windowCalls(append(targetNodes, sortNodes...)...); len(calls) > 0 {
		if rel, in, err = l.windows(rel, in, s, calls); err != nil {
			return nil, nil, err
		}
	}
	ts := in
	if corr {
		c := *in
		c.corr = true
		ts = &c
	}
	outs, err := l.targets(s.TargetList, ts, want)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case len(s.DistinctClause) > 0 && plainDistinct(s):
		rel, err = l.distinct(rel, in, outs, s.SortClause, l.limitOne(s)) // setop.go
	case len(s.DistinctClause) > 0: // DISTINCT ON: the first row per key, then as without it
		if rel, err = l.distinctOn(rel, in, outs, s); err == nil { // distinct_on.go
			rel, err = l.projectAndSort(rel, in, outs, s)
		}
	default:
		rel, err = l.projectAndSort(rel, in, outs, s)
	}
	if err != nil {
		return nil, nil, err
	}
	if rel, err = l.fetch(rel, s); err != nil {
		return nil, nil, err
	}
	names := make([]string, len(outs))
	for i, o := range outs {
		names[i] = o.name
	}
	return rel, names, nil
}

func (l *lowerer) filter(rel plan.Rel, sc *scope, where *pg_query.Node) (plan.Rel, error) {
	where, err := l.canonicalQual(where, sc, "in WHERE") // quals.go
	if err != nil {
		return nil, err
	}
	rel, where, err = l.whereSubqueries(rel, sc, where) // subquery.go
	if err != nil || where == nil {
		return rel, err
	}
	return l.conditionFilter(rel, sc, where)
}

// conditionFilter is rel filtered by the WHERE condition where (its
// subqueries already lowered).
func (l *lowerer) conditionFilter(rel plan.Rel, sc *scope, where *pg_query.Node) (plan.Rel, error) {
	if err := l.plannedBeforeMove(where, sc); err != nil { // wherequal.go
		return nil, err
	}
	ws := *sc
	ws.noAggs = "in WHERE"
	v, err := l.expr(where, &ws)
	if err != nil {
		return nil, err
	}
	cond, err := l.coerce(v, kindBool)
	if err != nil {
		return nil, err
	}
	if cond, err = l.reduceQual(cond); err != nil { // wherequal.go
		return nil, err
	}
	if l.outer == nil && l.unpulled == 0 { // the top query's: its gating quals (gatingqual.go)
		if cond, err = gatingQuals(cond); err != nil {
			return nil, err
		}
	}
	f, err := l.b.Filter(rel, cond)
	if err != nil {
		return nil, fmt.Errorf("%w: filter: %w", ErrInvalid, err)
	}
	return f, nil
}

// targets lowers the SELECT list, expanding * and t.* to the visible
// columns. An untyped item takes want's kind for its position, if any.
func (l *lowerer) targets(list []*pg_query.Node, in *scope, want []kind) ([]output, error) {
	var outs []output
	for j, n := range list {
		rt := n.GetResTarget()
		if rt == nil || rt.Val == nil {
			return nil, fmt.Errorf("%w: SELECT list item", ErrUnsupported)
		}
		if cr := rt.Val.GetColumnRef(); cr != nil {
			qual, _, star, err := l.refName(cr)
			if err != nil {
				return nil, err
			}
			if star {
				expanded, err := l.star(in, qual, cr.Location)
				if err != nil {
					return nil, err
				}
				outs = append(outs, expanded...)
				continue
			}
		}
		v, err := l.expr(rt.Val, in)
		if err != nil {
			return nil, err
		}
		var written expr.Expression
		if v, written, err = l.ownKey(v, j, in); err != nil {
			return nil, err
		}
		k := l.defaultKind(v)
		if i := len(outs); v.how != typed && i < len(want) && want[i] != kindUnknown {
			k = want[i]
		}
		e, err := l.coerce(v, k)
		if err != nil {
			return nil, err
		}
		name := rt.Name
		if name == "" {
			name = v.name
		}
		if name == "" {
			name = "?column?"
		}
		outs = append(outs, output{e: e, name: name, written: written})
	}
	if len(outs) == 0 {
		return nil, fmt.Errorf("%w: empty SELECT list", ErrUnsupported)
	}
	return outs, nil
}

func (l *lowerer) star(in *scope, qual string, loc int32) ([]output, error) {
	if in.aggs != nil {
		if in.group == nil || len(in.group.keys) == 0 {
			return nil, fmt.Errorf("%w: * next to an aggregate needs GROUP BY%s", ErrInvalid, l.src.at(loc))
		}
		return l.groupedStar(in, qual, loc)
	}
	if qual != "" && !in.hasQual(qual) {
		return nil, fmt.Errorf("%w: missing FROM-clause entry for table %q%s", ErrUnknownTable, qual, l.src.at(loc))
	}
	var outs []output
	for i, c := range in.cols {
		if !c.inStar(qual) {
			continue
		}
		e, err := in.ref(i)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		outs = append(outs, output{e: e, name: c.name})
	}
	if len(outs) == 0 {
		return nil, fmt.Errorf("%w: SELECT * with no columns%s", ErrInvalid, l.src.at(loc))
	}
	return outs, nil
}

// sortKey is one ORDER BY item: the output it names (-1 if none) and its
// expression over the input scope.
type sortKey struct {
	out  int
	e    expr.Expression
	kind types.SortDirection
}

func sortDirection(sb *pg_query.SortBy) (types.SortDirection, error) {
	desc := false
	switch sb.SortbyDir {
	case pg_query.SortByDir_SORTBY_DEFAULT, pg_query.SortByDir_SORTBY_ASC:
	case pg_query.SortByDir_SORTBY_DESC:
		desc = true
	default:
		return 0, fmt.Errorf("%w: ORDER BY ... USING", ErrUnsupported)
	}
	// Postgres: NULLs sort as larger than every value unless told otherwise.
	nullsFirst := desc
	switch sb.SortbyNulls {
	case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
		nullsFirst = true
	case pg_query.SortByNulls_SORTBY_NULLS_LAST:
		nullsFirst = false
	}
	switch {
	case desc && nullsFirst:
		return types.SortDescNullsFirst, nil
	case desc:
		return types.SortDescNullsLast, nil
	case nullsFirst:
		return types.SortAscNullsFirst, nil
	}
	return types.SortAscNullsLast, nil
}

// orderKeys resolves ORDER BY items the Postgres way: an integer is an
// output ordinal, a bare name an output name, anything else an expression
// over the input (which still counts as an output when it equals one).
func (l *lowerer) orderKeys(clause []*pg_query.Node, in *scope, outs []output) ([]sortKey, error) {
	var keys []sortKey
	for _, n := range clause {
		sb := n.GetSortBy()
		if sb == nil {
			return nil, fmt.Errorf("%w: ORDER BY item", ErrUnsupported)
		}
		dir, err := sortDirection(sb)
		if err != nil {
			return nil, err
		}
		out, err := l.outputNamed(sb.Node, outs)
		if err != nil {
			return nil, err
		}
		if out >= 0 {
			keys = append(keys, sortKey{out: out, e: outs[out].e, kind: dir})
			continue
		}
		ks := *in
		ks.noAggs = "in ORDER BY"
		v, err := l.expr(sb.Node, &ks)
		if err != nil {
			return nil, err
		}
		e, err := l.settle(v)
		if err != nil {
			return nil, err
		}
		key := sortKey{out: -1, e: e, kind: dir}
		for i, o := range outs {
			if sameExpr(o.e, e) {
				key.out = i
				break
			}
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// outputNamed returns the output an ORDER BY ordinal or bare name refers
// to, or -1.
func (l *lowerer) outputNamed(n *pg_query.Node, outs []output) (int, error) {
	if c := n.GetAConst(); c != nil {
		iv, ok := c.Val.(*pg_query.A_Const_Ival)
		if !ok {
			return -1, fmt.Errorf("%w: ORDER BY a constant other than a position%s", ErrUnsupported, l.src.at(c.Location))
		}
		if iv.Ival.Ival < 1 || int(iv.Ival.Ival) > len(outs) {
			return -1, fmt.Errorf("%w: ORDER BY position %d is not in select list%s", ErrInvalid, iv.Ival.Ival, l.src.at(c.Location))
		}
		return int(iv.Ival.Ival) - 1, nil
	}
	cr := n.GetColumnRef()
	if cr == nil || len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
		return -1, nil
	}
	name := cr.Fields[0].GetString_().GetSval()
	hit := -1
	for i, o := range outs {
		if o.name != name {
			continue
		}
		if hit >= 0 && !outs[hit].same(o) {
			return -1, fmt.Errorf("%w: ORDER BY %q is ambiguous%s", ErrAmbiguous, name, l.src.at(cr.Location))
		}
		if hit < 0 {
			hit = i
		}
	}
	return hit, nil
}

// projectAndSort emits Sort <- Project when every sort key is an output
// (the shape the take rule matches), else Project <- Sort; with a LIMIT,
// the select list is evaluated where PostgreSQL evaluates it
// (splitProjectAndSort, postpone.go).
func (l *lowerer) projectAndSort(rel plan.Rel, in *scope, outs []output, s *pg_query.SelectStmt) (plan.Rel, error) {
	keys, err := l.orderKeys(s.SortClause, in, outs)
	if err != nil {
		return nil, err
	}
	if len(keys) > 0 && s.LimitCount != nil {
		if split, ok, err := l.splitProjectAndSort(rel, outs, keys); err != nil || ok {
			return split, err
		}
	}
	below := false
	for _, k := range keys {
		below = below || k.out < 0
	}
	if below {
		fields := make([]expr.SortField, len(keys))
		for i, k := range keys {
			fields[i] = expr.SortField{Expr: k.e, Kind: k.kind}
		}
		if rel, err = l.b.Sort(rel, fields...); err != nil {
			return nil, fmt.Errorf("%w: sort: %w", ErrInvalid, err)
		}
	}
	n := rel.RecordType().FieldCount()
	exprs := make([]expr.Expression, len(outs))
	remap := make([]int32, len(outs))
	for i, o := range outs {
		exprs[i] = o.e
		remap[i] = n + int32(i)
	}
	proj, err := l.b.ProjectRemap(rel, remap, exprs...)
	if err != nil {
		return nil, fmt.Errorf("%w: project: %w", ErrInvalid, err)
	}
	if below || len(keys) == 0 {
		return proj, nil
	}
	fields := make([]expr.SortField, len(keys))
	for i, k := range keys {
		ref, err := l.b.RootFieldRef(proj, int32(k.out))
		if err != nil {
			return nil, fmt.Errorf("%w: sort: %w", ErrInvalid, err)
		}
		fields[i] = expr.SortField{Expr: ref, Kind: k.kind}
	}
	sorted, err := l.b.Sort(proj, fields...)
	if err != nil {
		return nil, fmt.Errorf("%w: sort: %w", ErrInvalid, err)
	}
	return sorted, nil
}

// fetch lowers LIMIT/OFFSET constants to a FetchRel.
func (l *lowerer) fetch(rel plan.Rel, s *pg_query.SelectStmt) (plan.Rel, error) {
	if s.LimitCount == nil && s.LimitOffset == nil {
		return rel, nil
	}
	count, err := l.limitValue(s.LimitCount, "LIMIT")
	if err != nil {
		return nil, err
	}
	offset, err := l.limitValue(s.LimitOffset, "OFFSET")
	if err != nil {
		return nil, err
	}
	if offset < 0 {
		offset = 0
	}
	f, err := l.b.Fetch(rel, offset, count)
	if err != nil {
		return nil, fmt.Errorf("%w: fetch: %w", ErrInvalid, err)
	}
	return f, nil
}

// limitValue reads a LIMIT/OFFSET constant; -1 stands for none (LIMIT ALL,
// LIMIT NULL, or absent).
func (l *lowerer) limitValue(n *pg_query.Node, what string) (int64, error) {
	if n == nil {
		return plan.FETCH_COUNT_ALL_RECORDS, nil
	}
	v, err := l.expr(n, &scope{noAggs: "in " + what})
	if err != nil {
		return 0, err
	}
	if v.how == untypedNull {
		return plan.FETCH_COUNT_ALL_RECORDS, nil
	}
	if v.how == untypedParam {
		return 0, fmt.Errorf("%w: parameter in %s%s", ErrUnsupported, what, l.src.at(v.loc))
	}
	e, err := l.coerce(v, kindI64)
	if err != nil {
		return 0, err
	}
	lit, ok := literalOf(e)
	num, isInt := lit.(int64)
	if !ok || !isInt {
		return 0, fmt.Errorf("%w: non-constant %s%s", ErrUnsupported, what, l.src.at(v.loc))
	}
	if num < 0 {
		return 0, fmt.Errorf("%w: %s must not be negative%s", ErrInvalid, what, l.src.at(v.loc))
	}
	return num, nil
}

// groupedStar is * over GROUP BY: each column of the FROM record must be
// a group key (SELECT * FROM t GROUP BY a, b), and reads as that key's
// column of the aggregate, as in PostgreSQL; any other column is
// PostgreSQL's error.
func (l *lowerer) groupedStar(in *scope, qual string, loc int32) ([]output, error) {
	src := in.group.input
	if qual != "" && !src.hasQual(qual) {
		return nil, fmt.Errorf("%w: missing FROM-clause entry for table %q%s", ErrUnknownTable, qual, l.src.at(loc))
	}
	var outs []output
	for i, c := range src.cols {
		if !c.inStar(qual) {
			continue
		}
		e, err := src.ref(i)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		key := slices.IndexFunc(in.group.keys, func(k expr.Expression) bool { return sameExpr(k, e) })
		if key < 0 {
			name := c.name
			if c.qual != "" {
				name = c.qual + "." + c.name
			}
			return nil, fmt.Errorf("%w: column %q must appear in the GROUP BY clause or be used in an aggregate function%s", ErrInvalid, name, l.src.at(loc))
		}
		ref, err := in.ref(key)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		outs = append(outs, output{e: ref, name: c.name})
	}
	if len(outs) == 0 {
		return nil, fmt.Errorf("%w: SELECT * with no columns%s", ErrInvalid, l.src.at(loc))
	}
	return outs, nil
}
