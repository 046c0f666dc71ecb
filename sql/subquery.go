package sql

import (
	"errors"
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/reflect/protoreflect"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// The WHERE conjuncts [NOT] EXISTS (q), x [NOT] IN (q) and x <> ALL (q)
// lower to Substrait subquery expressions (setExpr), as Isthmus writes
// them; the logical optimizer decorrelates them for every producer
// (plan/optimize, Decorrelate: semi and anti joins, NOT IN's NULL-aware
// anti join, the push to one FROM item), as PostgreSQL's
// pull_up_sublinks turns its SubLinks into joins after parsing. A plain
// subquery (SELECT ... FROM ... WHERE, no aggregate, DISTINCT, GROUP BY,
// LIMIT or set operation) may name the enclosing query in its WHERE and
// SELECT list: those names are outer references (steps_out 1).
//
// A scalar subquery (SELECT y ...) in the SELECT list, ORDER BY or a
// WHERE conjunct lowers to a ScalarSubquery expression (scalarExpr): the
// optimizer makes it a LEFT SINGLE join (at most one row), or, over an
// ungrouped aggregate correlated by equalities, a grouped LEFT join. A
// scalar subquery over an ungrouped aggregate may name the enclosing
// query in its WHERE and SELECT list too.
//
// A reference to the outer query anywhere else, or more than one level
// out, is refused with errCorrelated and its position.

// errCorrelated marks an outer-query reference the lowering cannot
// decorrelate.
var errCorrelated = fmt.Errorf("%w: correlated reference", ErrUnsupported)

// subLink lowers a subquery used as an expression: a scalar subquery
// where the SELECT takes one (markScalars), an EXISTS or IN of a WHERE
// conjunct (setExpr), an EXISTS, IN or op ANY/ALL anywhere else as a
// value (setValue); a scalar subquery elsewhere is refused.
func (l *lowerer) subLink(sl *pg_query.SubLink, s *scope) (value, error) {
	if l.scalarLinks[sl] {
		return l.scalarExpr(sl, s)
	}
	if k, ok := l.setLinks[sl]; ok {
		e, err := l.setExpr(sl, k, s)
		return value{e: e, loc: sl.Location}, err
	}
	switch sl.SubLinkType {
	case pg_query.SubLinkType_EXPR_SUBLINK:
		return value{}, fmt.Errorf("%w: scalar subquery here (a SELECT's list, WHERE, GROUP BY, HAVING and ORDER BY, VALUES lists and UPDATE's SET take them)%s", ErrUnsupported, l.src.at(sl.Location))
	case pg_query.SubLinkType_EXISTS_SUBLINK, pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK:
		return l.setValue(sl, s) // subquery_value.go
	}
	return value{}, fmt.Errorf("%w: subquery%s", ErrUnsupported, l.src.at(sl.Location))
}

// subquery lowers a whole SELECT whose outer query has scope sc; a
// reference to sc is refused (errCorrelated).
func (l *lowerer) subquery(sl *pg_query.SubLink, sc *scope) (plan.Rel, []string, error) {
	sub := sl.Subselect.GetSelectStmt()
	if sub == nil {
		return nil, nil, fmt.Errorf("%w: subquery form%s", ErrUnsupported, l.src.at(sl.Location))
	}
	saved := l.outer
	l.outer = sc
	defer func() { l.outer = saved }()
	return l.selectStmt(sub, nil)
}

// scalarSubLinks returns the scalar subqueries in the trees, in source
// order, not looking inside any subquery's own SELECT.
func scalarSubLinks(nodes ...*pg_query.Node) []*pg_query.SubLink {
	var out []*pg_query.SubLink
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if a, ok := m.Interface().(*pg_query.A_Expr); ok && a.Lexpr.GetRowExpr() != nil && a.Rexpr.GetSubLink() != nil {
			walk(a.Lexpr.ProtoReflect()) // a row's subquery, not a scalar one (rowcmp.go)
			return
		}
		if sl, ok := m.Interface().(*pg_query.SubLink); ok {
			if sl.SubLinkType == pg_query.SubLinkType_EXPR_SUBLINK {
				out = append(out, sl)
			} else if sl.Testexpr != nil {
				walk(sl.Testexpr.ProtoReflect())
			}
			return
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return true })
	}
	for _, n := range nodes {
		if n != nil {
			walk(n.ProtoReflect())
		}
	}
	return out
}

// markScalars lets the scalar subqueries in nodes lower to Substrait
// ScalarSubquery expressions (scalarExpr): those of the SELECT list and
// ORDER BY after any aggregation, and of the WHERE conjuncts that are no
// EXISTS or IN. Elsewhere (an aggregate's argument, GROUP BY, JOIN ... ON)
// one is refused where it stands, with its position (subLink).
func (l *lowerer) markScalars(nodes ...*pg_query.Node) {
	if l.scalarLinks == nil {
		l.scalarLinks = map[*pg_query.SubLink]bool{}
	}
	for _, sl := range scalarSubLinks(nodes...) {
		l.scalarLinks[sl] = true
	}
}

// scalarExpr lowers the scalar subquery sl over sc's columns to a
// Substrait ScalarSubquery expression, as Isthmus writes one; its value
// is NULL when it returns no row and an error when it returns two. The
// optimizer makes the join (optimize.Decorrelate: a LEFT SINGLE join, on
// the correlation when it has one; an ungrouped aggregate grouped by the
// correlation's inner keys and LEFT joined, its input restricted to the
// outer keys), as PostgreSQL plans the SubLink its parser kept (as a
// SubPlan, or an InitPlan when uncorrelated). A subquery of a shape the
// optimizer decorrelates (correlatable) may name the enclosing query in
// its WHERE and SELECT list, as outer references (steps_out 1); any
// other naming it is refused with errCorrelated and its position.
func (l *lowerer) scalarExpr(sl *pg_query.SubLink, sc *scope) (value, error) {
	sub := sl.Subselect.GetSelectStmt()
	if sub == nil {
		return value{}, fmt.Errorf("%w: subquery form%s", ErrUnsupported, l.src.at(sl.Location))
	}
	saved := l.outer
	l.outer = sc
	l.corrNext = correlatable(sub)
	rel, names, err := l.selectStmt(sub, nil)
	l.outer, l.corrNext = saved, false
	if err != nil {
		return value{}, err
	}
	if len(names) != 1 {
		return value{}, fmt.Errorf("%w: subquery must return only one column%s", ErrInvalid, l.src.at(sl.Location))
	}
	e, err := l.b.ScalarSubquery(rel)
	if err != nil {
		return value{}, fmt.Errorf("%w: scalar subquery: %w", ErrInvalid, err)
	}
	// Its value is NULL when it returns no row, whatever its column's
	// type: substrait-go types the expression as that column, so a NOT
	// NULL column is made nullable (a cast the planner drops), or a set
	// operation or CASE over it would take a required type for a NULL.
	return value{e: nullable(e), loc: sl.Location, name: names[0]}, nil
}

// correlatable reports a subquery whose WHERE and SELECT list may name
// the enclosing queries: every one, since the optimizer unnests a
// dependent join through any of its operators (optimize.Decorrelate:
// flatten for filters and projects, scalarAggregate for an ungrouped
// aggregate, decorrelate_general.go for the rest, as "Unnesting Arbitrary
// Queries" does), or refuses with a typed unsupported error.
func correlatable(*pg_query.SelectStmt) bool { return true }

// setKind is what a WHERE conjunct asks of a subquery.
type setKind int

const (
	setNone setKind = iota
	setExists
	setNotExists
	setIn
	setNotIn
	// setCompare is x op ANY (q) or x op ALL (q) other than IN and
	// NOT IN, a value (subquery_value.go).
	setCompare
)

// setSubLink recognizes [NOT] EXISTS (q), x [NOT] IN (q) and x <> ALL (q)
// (which is NOT IN), and NOT of each.
func setSubLink(n *pg_query.Node) (*pg_query.SubLink, setKind) {
	negate := false
	if b := n.GetBoolExpr(); b != nil && b.Boolop == pg_query.BoolExprType_NOT_EXPR && len(b.Args) == 1 {
		negate, n = true, b.Args[0]
	}
	sl := n.GetSubLink()
	if sl == nil {
		return nil, setNone
	}
	op := ""
	if len(sl.OperName) == 1 {
		op = sl.OperName[0].GetString_().GetSval()
	}
	var k setKind
	switch {
	case sl.SubLinkType == pg_query.SubLinkType_EXISTS_SUBLINK:
		k = setExists
	case sl.SubLinkType == pg_query.SubLinkType_ANY_SUBLINK && (op == "" || op == "="): // IN has no operator name
		k = setIn
	case sl.SubLinkType == pg_query.SubLinkType_ALL_SUBLINK && op == "<>":
		k = setNotIn
	default:
		return nil, setNone
	}
	if negate {
		k = map[setKind]setKind{setExists: setNotExists, setIn: setNotIn, setNotIn: setIn}[k]
	}
	return sl, k
}

// andArgs splits an AND tree into its conjuncts.
func andArgs(n *pg_query.Node) []*pg_query.Node {
	if n == nil {
		return nil
	}
	if b := n.GetBoolExpr(); b != nil && b.Boolop == pg_query.BoolExprType_AND_EXPR {
		var out []*pg_query.Node
		for _, a := range b.Args {
			out = append(out, andArgs(a)...)
		}
		return out
	}
	return []*pg_query.Node{n}
}

// whereSubqueries is the WHERE clause's subquery lowering: conjuncts that
// are [NOT] EXISTS or [NOT] IN subqueries become semi and anti joins of
// rel, the scalar subqueries of the others single joins (their columns
// are added to sc). It returns the conjuncts left for the filter (nil:
// none).
//
// The conjuncts with no subquery at all filter rel before the semi and
// anti joins: they keep the same rows either way (each conjunct only
// drops rows), and the joins then see, and may build, only the rows that
// survive (TPC-H Q4's date range keeps 57K of 1.5M orders for its EXISTS).
func (l *lowerer) whereSubqueries(rel plan.Rel, sc *scope, where *pg_query.Node) (plan.Rel, *pg_query.Node, error) {
	var rest, plain []*pg_query.Node
	var sets []*pg_query.Node
	for _, c := range andArgs(where) {
		switch _, k := setSubLink(c); {
		case k != setNone:
			sets = append(sets, c)
		case !containsSubLink(c):
			plain = append(plain, c)
		default:
			rest = append(rest, c)
		}
	}
	if len(sets)+len(rest) > 0 && l.whereFalse(plain, sc) { // falsewhere.go
		// PostgreSQL folds the WHERE before it plans the subqueries
		// left in it (eval_const_expressions, then SS_process_sublinks):
		// with a conjunct that is constant FALSE or NULL it is FALSE,
		// and those subqueries are never planned, nor a constant's
		// error in them raised (x NOT IN (SELECT ... 1e400 <= d ...)
		// AND FALSE keeps no row). Not so for those it has turned into
		// joins before (pull_up_sublinks: an uncorrelated IN, a
		// correlated [NOT] EXISTS), planned as ever. The others are
		// still lowered, and dropped: PostgreSQL parses them, so an
		// error that is not a constant's evaluation (max(boolean) does
		// not exist) raises.
		var pulled, dropped []*pg_query.Node
		for _, c := range sets {
			if l.pulledUp(c, sc) {
				pulled = append(pulled, c)
			} else {
				dropped = append(dropped, c)
			}
		}
		scratch := *sc
		joined, _, err := l.whereSubqueries(rel, &scratch, andNode(pulled))
		if err != nil {
			return nil, nil, err
		}
		// Planned as ever: a constant in them that raises raises
		// (raiseConstants), though their joins leave the plan here.
		if err := raiseConstants(joined); err != nil {
			return nil, nil, err
		}
		scratch = *sc
		_, _, err = l.whereSubqueries(rel, &scratch, andNode(append(dropped, rest...)))
		for _, sl := range scalarSubLinks(rest...) {
			if err == nil {
				_, err = l.scalarExpr(sl, &scratch)
			}
		}
		// The EXISTS, IN, ANY and ALL subqueries inside the other
		// conjuncts (under an OR, a NOT, a CASE) are analysed too
		// (analyze.go; seed 20261230 case 302920).
		for _, sl := range subLinks(andNode(rest)) {
			if err == nil && sl.SubLinkType != pg_query.SubLinkType_EXPR_SUBLINK {
				if aerr := l.analyzeSubLink(sl, &scratch); isAnalysisError(aerr) {
					err = aerr
				}
			}
		}
		if err != nil && !errors.Is(err, sqlvalue.ErrOutOfRange) && !errors.Is(err, sqlvalue.ErrDivisionByZero) {
			return nil, nil, err
		}
		// The conjuncts before the FALSE one were folded first, outside
		// their subqueries too (sublinkfold.go).
		if err := l.foldedBeforeFalse(where, sc, func(c *pg_query.Node) bool { return slices.Contains(pulled, c) }); err != nil {
			return nil, nil, err
		}
		rel, err := l.conditionFilter(rel, sc, andNode(plain))
		return rel, nil, err
	}
	if len(sets) == 0 {
		rest = append(plain, rest...)
	} else {
		var g whereGate
		var err error
		if l.outer == nil && l.unpulled == 0 { // the top query's gating quals (existsgate.go)
			if g, plain, err = l.existsGate(andArgs(where), sets, plain, sc); err != nil {
				return nil, nil, err
			}
		}
		if len(plain) > 0 {
			if rel, err = l.conditionFilter(rel, sc, andNode(plain)); err != nil {
				return nil, nil, err
			}
		}
		if rel, err = l.setFilter(rel, sc, sets, g); err != nil {
			return nil, nil, err
		}
	}
	l.markScalars(rest...)
	if len(sets) == 0 {
		return rel, where, nil
	}
	return rel, andNode(rest), nil
}

// markSets lets the EXISTS and IN subqueries of the set conjuncts cs
// lower to subquery expressions (subLink, setExpr).
func (l *lowerer) markSets(cs []*pg_query.Node) {
	if l.setLinks == nil {
		l.setLinks = map[*pg_query.SubLink]setKind{}
	}
	for _, c := range cs {
		if b := c.GetBoolExpr(); b != nil && b.Boolop == pg_query.BoolExprType_NOT_EXPR && len(b.Args) == 1 {
			c = b.Args[0] // NOT lowers as not() over the subquery's expression
		}
		if sl, k := setSubLink(c); sl != nil {
			l.setLinks[sl] = k
		}
	}
}

// setFilter is rel (scope sc) filtered by the set conjuncts cs, as
// subquery expressions: the filter Decorrelate turns into semi and anti
// joins. It is not the top query's gating filter: PostgreSQL pulls these
// sublinks up as joins before it looks for pseudoconstant quals.
func (l *lowerer) setFilter(rel plan.Rel, sc *scope, cs []*pg_query.Node, g whereGate) (plan.Rel, error) {
	l.markSets(cs)
	ws := *sc
	ws.noAggs = "in WHERE"
	var parts []expr.Expression
	for _, c := range cs {
		v, err := l.expr(c, &ws)
		if err != nil {
			return nil, err
		}
		e, err := l.coerce(v, kindBool)
		if err != nil {
			return nil, err
		}
		if c == g.exists {
			if e, err = l.gated(e, g.quals, &ws); err != nil {
				return nil, err
			}
		}
		parts = append(parts, e)
	}
	cond := parts[0]
	if len(parts) > 1 {
		var err error
		if cond, err = l.call(urnBoolean, "and", -1, parts...); err != nil {
			return nil, err
		}
	}
	f, err := l.b.Filter(rel, cond)
	if err != nil {
		return nil, fmt.Errorf("%w: filter: %w", ErrInvalid, err)
	}
	return f, nil
}

// pulledUp: PostgreSQL turns the WHERE conjunct c, a [NOT] EXISTS or
// [NOT] IN subquery, into a join before it folds the WHERE
// (pull_up_sublinks): an IN whose subquery names nothing of the
// enclosing query and whose left operand names a column of it (else "it's
// not gonna be a join": convert_ANY_sublink_to_join; -7 IN (SELECT ...)
// stays a subquery, dropped with a FALSE WHERE, seed 20261220 case
// 34255), an EXISTS or NOT EXISTS whose subquery does. A subquery that
// lowers on its own is one that names nothing outside.
func (l *lowerer) pulledUp(c *pg_query.Node, sc *scope) bool {
	sl, k := setSubLink(c)
	if sl == nil || k == setNotIn {
		return false
	}
	if k == setIn && !l.namesColumnHere(sl.Testexpr, sc) {
		return false
	}
	outer := l.outer
	l.outer = nil
	_, _, err := l.selectStmt(sl.GetSubselect().GetSelectStmt(), nil)
	l.outer = outer
	correlated := err != nil && notFound(err)
	return (k == setIn) != correlated
}

// namesColumnHere: n, outside its subqueries, refers to a column of sc's
// own FROM (not an outer query's).
func (l *lowerer) namesColumnHere(n *pg_query.Node, sc *scope) bool {
	found := false
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg_query.SubLink:
			return
		case *pg_query.ColumnRef:
			if _, ok := l.refIndex(x, sc); ok {
				found = true
			}
			return
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return !found })
	}
	if n != nil {
		walk(n.ProtoReflect())
	}
	return found
}

// constantFalse: the WHERE conjunct c folds to FALSE or NULL (an error
// lowering it is left for the filter that lowers it again to raise).
func (l *lowerer) constantFalse(c *pg_query.Node, sc *scope) bool {
	cond, ok := l.qualCondition(c, sc)
	return ok && constFalse(cond)
}

// andNode is the conjunction of cs: nil for none, the one for one.
func andNode(cs []*pg_query.Node) *pg_query.Node {
	switch len(cs) {
	case 0:
		return nil
	case 1:
		return cs[0]
	}
	and := &pg_query.BoolExpr{Boolop: pg_query.BoolExprType_AND_EXPR, Args: cs, Location: -1}
	return &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: and}}
}

// plainSelect reports a subquery that is SELECT ... FROM ... WHERE ...
// [ORDER BY] and nothing more: its rows are the FROM rows the WHERE keeps,
// so it can be flattened into a join.
func plainSelect(s *pg_query.SelectStmt) bool {
	if s.Op != pg_query.SetOperation_SETOP_NONE && s.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED {
		return false
	}
	if s.WithClause != nil || len(s.DistinctClause) > 0 || len(s.GroupClause) > 0 || s.GroupDistinct || s.HavingClause != nil ||
		len(s.WindowClause) > 0 || s.LimitCount != nil || s.LimitOffset != nil || len(s.ValuesLists) > 0 || s.IntoClause != nil ||
		len(s.LockingClause) > 0 || len(s.FromClause) == 0 {
		return false
	}
	var targets []*pg_query.Node
	for _, t := range s.TargetList {
		targets = append(targets, t.GetResTarget().GetVal())
	}
	// A subquery inside the WHERE is lowered with the whole SELECT, as
	// a subquery expression of its filter: Decorrelate unnests it within
	// the subquery first (its semi, single or mark join under the filter
	// of the conjuncts naming the enclosing query, which it then takes
	// as the correlation); one naming the query two levels out is
	// refused (errCorrelated: only the enclosing scope is an outer one).
	return len(aggregateCalls(targets...)) == 0
}

// containsSubLink reports a subquery anywhere in n.
func containsSubLink(n *pg_query.Node) bool {
	found := false
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if _, ok := m.Interface().(*pg_query.SubLink); ok {
			found = true
		}
		if found {
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Kind() != protoreflect.MessageKind {
				return true
			}
			switch {
			case fd.IsList():
				for i := range v.List().Len() {
					walk(v.List().Get(i).Message())
				}
			case fd.IsMap():
			default:
				walk(v.Message())
			}
			return !found
		})
	}
	if n != nil {
		walk(n.ProtoReflect())
	}
	return found
}

// setExpr lowers the EXISTS or IN subquery sl of a WHERE conjunct (kind
// k, its negation included) over sc's columns to a Substrait subquery
// expression: SetPredicate EXISTS, or InPredicate with the operand as its
// needle, under not() for NOT EXISTS and NOT IN (x <> ALL (q) is NOT IN).
// The optimizer makes the joins (optimize.Decorrelate: semi, anti, the
// NULL-aware anti join of NOT IN, the push to one FROM item), as
// PostgreSQL's pull_up_sublinks does after its parser kept them as
// SubLinks. A plain subquery (plainSelect) may name the enclosing query
// in its WHERE and SELECT list, as outer references (steps_out 1); any
// other naming it is refused with errCorrelated and its position.
func (l *lowerer) setExpr(sl *pg_query.SubLink, k setKind, sc *scope) (expr.Expression, error) {
	sub := sl.Subselect.GetSelectStmt()
	if sub == nil {
		return nil, fmt.Errorf("%w: subquery form%s", ErrUnsupported, l.src.at(sl.Location))
	}
	if k == setCompare {
		if e, ok, err := l.likeSetComparison(sl, sc); ok { // likeany.go
			return e, err
		}
	}
	in := k == setIn || k == setNotIn || k == setCompare
	var xs []value // the operands: one, or a row's (rowin.go)
	if in {
		var err error
		if xs, err = l.setOperands(sl, k, sc); err != nil {
			return nil, err
		}
	}
	q := sub
	if plainSelect(sub) && len(sub.SortClause) > 0 {
		// Its ORDER BY orders nothing EXISTS or IN can see, and would
		// stand between its filter and the join (PostgreSQL drops it
		// too: convert_EXISTS_sublink_to_join's simplify_EXISTS_query).
		// Dropped for the lowering, not on a copy: the calls of an
		// enclosing query's aggregates in it are known by their nodes
		// (outeragg.go).
		saved := sub.SortClause
		sub.SortClause = nil
		defer func() { sub.SortClause = saved }()
	}
	l.corrNext = correlatable(sub)
	want := operandKinds(xs)
	saved := l.outer
	l.outer = sc
	rel, names, err := l.selectStmt(q, want)
	l.outer, l.corrNext = saved, false
	if err != nil {
		return nil, err
	}
	var e expr.Expression
	if !in {
		if e, err = l.b.SetPredicateSubquery(rel, plan.SetPredicateOpExists); err != nil {
			return nil, fmt.Errorf("%w: EXISTS subquery: %w", ErrInvalid, err)
		}
	} else {
		var needles []expr.Expression
		if needles, rel, err = l.haystack(xs, rel, len(names), sl.Location); err != nil {
			return nil, err
		}
		if k == setCompare {
			red, op, err := l.setComparison(sl)
			if err != nil {
				return nil, err
			}
			if e, err = l.b.SetComparisonSubquery(needles[0], rel, red, op); err != nil {
				return nil, fmt.Errorf("%w: %s subquery: %w", ErrInvalid, red, err)
			}
		} else if e, err = l.b.InPredicateSubquery(needles, rel); err != nil {
			return nil, fmt.Errorf("%w: IN subquery: %w", ErrInvalid, err)
		}
	}
	if k == setNotExists || k == setNotIn {
		return l.call(urnBoolean, "not", sl.Location, e)
	}
	return e, nil
}
