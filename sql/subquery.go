package sql

import (
	"errors"
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"google.golang.org/protobuf/reflect/protoreflect"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// Subqueries lower to joins, so the planner needs no subquery operator:
//
//	WHERE ... AND EXISTS (q)          LEFT SEMI join with q
//	WHERE ... AND NOT EXISTS (q)      LEFT ANTI join with q
//	WHERE ... AND x IN (q)            LEFT SEMI join on x = y
//	WHERE ... AND x NOT IN (q)        LEFT ANTI join on x = y OR x IS NULL OR y IS NULL
//	(SELECT y ...) as a value         LEFT SINGLE join on true (at most one row)
//
// The NOT IN condition is PostgreSQL's NULL rule spelled as a join
// condition: a row of q makes x NOT IN (q) false or NULL exactly when it
// equals x, or either is NULL; the row survives the anti join only when
// no row of q does that (and always when q is empty). The planner runs
// that anti join as a NULL-aware hash join.
//
// A correlated EXISTS or IN is decorrelated when the subquery is a plain
// SELECT ... FROM ... WHERE (no aggregate, DISTINCT, GROUP BY, LIMIT, set
// operation): its WHERE conjuncts that reference the outer query become
// the join condition, the others filter the subquery. A reference to the
// outer query anywhere else, and any correlated scalar subquery, is
// refused with errCorrelated and its position.

// errCorrelated marks an outer-query reference the lowering cannot
// decorrelate.
var errCorrelated = fmt.Errorf("%w: correlated reference", ErrUnsupported)

// subColumn is a scalar subquery's value: the column its single join added
// to the scope, and the output name it suggests.
type subColumn struct {
	idx  int
	name string
}

// subLink lowers a subquery used as an expression: a scalar subquery whose
// single join was made (scalarSubqueries); anything else is refused.
func (l *lowerer) subLink(sl *pg_query.SubLink, s *scope) (value, error) {
	if c, ok := s.subs[sl]; ok {
		e, err := s.ref(c.idx)
		if err != nil {
			return value{}, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return value{e: e, loc: sl.Location, name: c.name}, nil
	}
	switch sl.SubLinkType {
	case pg_query.SubLinkType_EXPR_SUBLINK:
		return value{}, fmt.Errorf("%w: scalar subquery here (the SELECT list, WHERE and ORDER BY of a SELECT take them)%s", ErrUnsupported, l.src.at(sl.Location))
	case pg_query.SubLinkType_EXISTS_SUBLINK, pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK:
		return value{}, fmt.Errorf("%w: EXISTS, IN or ALL subquery other than as a WHERE conjunct ([NOT] EXISTS, [NOT] IN, <> ALL)%s", ErrUnsupported, l.src.at(sl.Location))
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

// scalarSubqueries joins each (uncorrelated) scalar subquery in nodes onto
// rel with a LEFT SINGLE join on true, so its value is a column: NULL
// when it returns no row, an error when it returns two. The column is
// added to sc (hidden: never part of *), and sc.subs says where.
func (l *lowerer) scalarSubqueries(rel plan.Rel, sc *scope, nodes ...*pg_query.Node) (plan.Rel, error) {
	for _, sl := range scalarSubLinks(nodes...) {
		if _, done := sc.subs[sl]; done {
			continue
		}
		sub, names, err := l.subquery(sl, sc)
		if errors.Is(err, errCorrelated) {
			// An aggregate correlated by equalities: a grouped LEFT join
			// (correlated.go); another shape keeps the first error.
			j, c, cerr := l.correlatedScalar(rel, sc, sl)
			if cerr != nil {
				if errors.Is(cerr, errCorrelated) {
					return nil, err
				}
				return nil, cerr
			}
			rel = j
			if sc.subs == nil {
				sc.subs = map[*pg_query.SubLink]subColumn{}
			}
			sc.subs[sl] = c
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(names) != 1 {
			return nil, fmt.Errorf("%w: subquery must return only one column%s", ErrInvalid, l.src.at(sl.Location))
		}
		j, err := l.b.Join(rel, sub, expr.NewPrimitiveLiteral(true, false), plan.JoinTypeLeftSingle)
		if err != nil {
			return nil, fmt.Errorf("%w: scalar subquery: %w", ErrInvalid, err)
		}
		rel = j
		if sc.subs == nil {
			sc.subs = map[*pg_query.SubLink]subColumn{}
		}
		t := sub.RecordType().Types()[0].WithNullability(types.NullabilityNullable)
		sc.cols = append(sc.cols, column{typ: t, hidden: true})
		sc.subs[sl] = subColumn{idx: len(sc.cols) - 1, name: names[0]}
	}
	return rel, nil
}

// setKind is what a WHERE conjunct asks of a subquery.
type setKind int

const (
	setNone setKind = iota
	setExists
	setNotExists
	setIn
	setNotIn
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
	if len(sets)+len(rest) > 0 && slices.ContainsFunc(plain, func(c *pg_query.Node) bool { return l.constantFalse(c, sc) }) {
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
		if _, _, err := l.whereSubqueries(rel, &scratch, andNode(append(dropped, rest...))); err != nil &&
			!errors.Is(err, sqlvalue.ErrOutOfRange) && !errors.Is(err, sqlvalue.ErrDivisionByZero) {
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
	} else if len(plain) > 0 {
		var err error
		if rel, err = l.conditionFilter(rel, sc, andNode(plain)); err != nil {
			return nil, nil, err
		}
	}
	for _, c := range sets {
		sl, k := setSubLink(c)
		var err error
		if rel, err = l.setJoin(rel, sc, sl, k); err != nil {
			return nil, nil, err
		}
	}
	rel, err := l.scalarSubqueries(rel, sc, rest...)
	if err != nil {
		return nil, nil, err
	}
	if len(sets) == 0 {
		return rel, where, nil
	}
	return rel, andNode(rest), nil
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
	// A subquery inside the WHERE is lowered with the whole SELECT (its
	// own semi joins), so nested subqueries work when uncorrelated.
	return len(aggregateCalls(targets...)) == 0 && !containsSubLink(s.WhereClause)
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

// setJoin joins rel (scope sc) with an EXISTS or IN subquery.
func (l *lowerer) setJoin(rel plan.Rel, sc *scope, sl *pg_query.SubLink, k setKind) (plan.Rel, error) {
	sub := sl.Subselect.GetSelectStmt()
	if sub == nil {
		return nil, fmt.Errorf("%w: subquery form%s", ErrUnsupported, l.src.at(sl.Location))
	}
	in := k == setIn || k == setNotIn
	var x value
	if in {
		if sl.Testexpr.GetRowExpr() != nil {
			return nil, fmt.Errorf("%w: row IN (subquery)%s", ErrUnsupported, l.src.at(sl.Location))
		}
		xs := *sc
		xs.noAggs = "in WHERE"
		var err error
		if x, err = l.expr(sl.Testexpr, &xs); err != nil {
			return nil, err
		}
	}
	var sub2 plan.Rel
	var conds []expr.Expression
	var y value
	if plainSelect(sub) {
		var err error
		if sub2, conds, y, err = l.flatten(sub, sc, in, sl.Location); err != nil {
			return nil, err
		}
	} else {
		r, names, err := l.subquery(sl, sc)
		if err != nil {
			return nil, err
		}
		sub2 = r
		if in {
			if len(names) != 1 {
				return nil, fmt.Errorf("%w: subquery has too many columns%s", ErrInvalid, l.src.at(sl.Location))
			}
			js := &scope{cols: append(append([]column{}, sc.cols...), column{typ: r.RecordType().Types()[0]})}
			e, err := js.ref(len(sc.cols))
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
			}
			y = value{e: e, loc: sl.Location}
		}
	}
	if in {
		args, _, err := l.unify(x, y)
		if err != nil {
			return nil, err
		}
		eq, err := l.call(urnComparison, "equal", sl.Location, args...)
		if err != nil {
			return nil, err
		}
		if k == setNotIn {
			xn, err := l.call(urnComparison, "is_null", sl.Location, args[0])
			if err != nil {
				return nil, err
			}
			yn, err := l.call(urnComparison, "is_null", sl.Location, args[1])
			if err != nil {
				return nil, err
			}
			if eq, err = l.call(urnBoolean, "or", sl.Location, eq, xn, yn); err != nil {
				return nil, err
			}
		}
		conds = append(conds, eq)
	}
	var cond expr.Expression = expr.NewPrimitiveLiteral(true, false)
	switch {
	case len(conds) == 1:
		cond = conds[0]
	case len(conds) > 1:
		var err error
		if cond, err = l.call(urnBoolean, "and", sl.Location, conds...); err != nil {
			return nil, err
		}
	}
	jt := plan.JoinTypeLeftSemi
	if k == setNotExists || k == setNotIn {
		jt = plan.JoinTypeLeftAnti
	}
	j, err := l.b.Join(rel, sub2, cond, jt)
	if err != nil {
		return nil, fmt.Errorf("%w: subquery join: %w", ErrInvalid, err)
	}
	return j, nil
}

// flatten lowers a plain subquery for a semi or anti join: its FROM,
// filtered by the WHERE conjuncts that reference only it; the conjuncts
// that reference the outer query (sc) are returned as join conditions
// over sc's columns then the subquery's, and so is the SELECT item y when
// in (IN's right side).
func (l *lowerer) flatten(sub *pg_query.SelectStmt, sc *scope, in bool, loc int32) (plan.Rel, []expr.Expression, value, error) {
	saved := l.outer
	l.outer = sc
	rel, subSc, err := l.from(sub.FromClause)
	l.outer = saved
	if err != nil {
		return nil, nil, value{}, err
	}
	cs := &scope{cols: append(append([]column{}, sc.cols...), subSc.cols...), shadow: len(sc.cols), outer: sc.outer, noAggs: "in WHERE"}
	var conds []expr.Expression
	// The subquery's WHERE is a qual too: its NULL arms are FALSE
	// before it is split (quals.go).
	where, err := l.canonicalQual(sub.WhereClause, cs, cs.noAggs)
	if err != nil {
		return nil, nil, value{}, err
	}
	for _, c := range andArgs(where) {
		ls := *subSc
		ls.noAggs = "in WHERE"
		v, err := l.expr(c, &ls)
		if err == nil {
			e, err := l.coerce(v, kindBool)
			if err != nil {
				return nil, nil, value{}, err
			}
			if rel, err = l.b.Filter(rel, e); err != nil {
				return nil, nil, value{}, fmt.Errorf("%w: filter: %w", ErrInvalid, err)
			}
			continue
		}
		if !errors.Is(err, errCorrelated) {
			return nil, nil, value{}, err
		}
		// It references the outer query: a join condition.
		if v, err = l.expr(c, cs); err != nil {
			return nil, nil, value{}, err
		}
		e, err := l.coerce(v, kindBool)
		if err != nil {
			return nil, nil, value{}, err
		}
		conds = append(conds, e)
	}
	var y value
	if in {
		if len(sub.TargetList) != 1 {
			return nil, nil, value{}, fmt.Errorf("%w: subquery has too many columns%s", ErrInvalid, l.src.at(loc))
		}
		rt := sub.TargetList[0].GetResTarget()
		if cr := rt.GetVal().GetColumnRef(); cr != nil {
			if _, _, star, _ := l.refName(cr); star {
				return nil, nil, value{}, fmt.Errorf("%w: * in an IN subquery%s", ErrUnsupported, l.src.at(cr.Location))
			}
		}
		if y, err = l.expr(rt.GetVal(), cs); err != nil {
			return nil, nil, value{}, err
		}
	}
	return rel, conds, y, nil
}
