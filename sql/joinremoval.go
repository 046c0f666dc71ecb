package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// PostgreSQL removes a LEFT JOIN whose right side is a subquery that
// gives at most one row per left row and none of whose columns is used
// above the join (remove_useless_joins, join_is_removable): the join
// keeps every left row once, so it changes nothing. It does so before it
// plans that subquery, so the subquery is never planned: a constant in it
// that raises (46341 % 0) does not raise, and no row of it is evaluated
// (s.k / 0 = 1 over a non-empty table does not raise either). The
// subquery is still analysed (an unknown column, an aggregate of the
// outer query, a type error still raise), and the join's ON clause is
// folded with the statement (ON 1/0 = 1 raises). difftest seed 20261237
// case 104425.
//
// The front end follows that here, for the shape PostgreSQL proves unique
// without looking at the join clause: a subquery (LATERAL or not) that
// aggregates without GROUP BY and returns no set from its SELECT list,
// so one row, or none under a HAVING. It lowers the subquery as ever
// (its analysis errors raise), as a query whose rows are never pulled
// (no gating qual of it is evaluated while planning), and leaves it out
// of the plan. The other
// shapes PostgreSQL removes (a subquery grouped or DISTINCT on the join
// keys, a table unique on them, the mirrored RIGHT JOIN) are kept as
// joins: they give the same rows, and only a raising expression inside
// them could tell.

// setReturning are the functions that may turn one row of a SELECT list
// into several (PostgreSQL's hasTargetSRFs), which makes a subquery's
// one row a set.
var setReturning = map[string]bool{
	"generate_series": true, "generate_subscripts": true, "unnest": true,
	"regexp_matches": true, "regexp_split_to_table": true, "string_to_table": true,
	"json_array_elements": true, "jsonb_array_elements": true,
	"json_array_elements_text": true, "jsonb_array_elements_text": true,
	"json_each": true, "jsonb_each": true, "json_each_text": true, "jsonb_each_text": true,
	"json_object_keys": true, "jsonb_object_keys": true,
}

// oneRowSubquery: n is a FROM subquery whose query aggregates without
// GROUP BY and whose SELECT list returns no set: it gives at most one
// row, whatever its LATERAL references are bound to.
func oneRowSubquery(n *pg_query.Node) bool {
	q := n.GetRangeSubselect().GetSubquery().GetSelectStmt()
	if q == nil || q.Op != pg_query.SetOperation_SETOP_NONE || len(q.ValuesLists) > 0 ||
		len(q.GroupClause) > 0 || q.WithClause != nil {
		return false
	}
	var targets []*pg_query.Node
	for _, t := range q.TargetList {
		targets = append(targets, t.GetResTarget().GetVal())
	}
	if setReturningCall(targets...) {
		return false
	}
	return len(aggregateCalls(append(targets, q.HavingClause)...)) > 0
}

// setReturningCall: a set-returning function is called in the trees
// outside their subqueries.
func setReturningCall(nodes ...*pg_query.Node) bool {
	return namedCall(setReturning, nodes...)
}

// namedCall: a function of names is called in the trees outside their
// subqueries.
func namedCall(names map[string]bool, nodes ...*pg_query.Node) bool {
	found := false
	var walk func(m protoreflect.Message) bool
	walk = func(m protoreflect.Message) bool {
		switch x := m.Interface().(type) {
		case *pg_query.SubLink:
			return true
		case *pg_query.FuncCall:
			if names[funcName(x)] {
				found = true
				return false
			}
		}
		eachChild(m, walk)
		return !found
	}
	for _, n := range nodes {
		if n != nil {
			walk(n.ProtoReflect())
		}
	}
	return found
}

// removableJoin: the LEFT JOIN j is one PostgreSQL removes, as far as
// the parse tree tells before j's right side is lowered (its rows are
// then never pulled: lowerer.unpulled). The SELECT whose FROM holds j is
// l.fromOf; the subquery's columns are unused when nothing in it outside
// j's right side and ON clause could name one: no column reference
// qualified by the subquery's alias, no unqualified one spelling one of
// its column names or the alias (a whole-row reference), no unqualified
// * and no USING or NATURAL join (which name columns by name alone).
// Reading a name that resolves elsewhere as a use only keeps a join
// PostgreSQL would remove.
func (l *lowerer) removableJoin(j *pg_query.JoinExpr) bool {
	sub := j.Rarg.GetRangeSubselect()
	if l.fromOf == nil || j.Jointype != pg_query.JoinType_JOIN_LEFT || sub == nil ||
		sub.Alias == nil || j.IsNatural || len(j.UsingClause) > 0 || j.Alias != nil ||
		containsSubLink(j.Quals) || !oneRowSubquery(j.Rarg) {
		return false
	}
	alias := sub.Alias.Aliasname
	names, ok := outputNames(sub)
	if !ok {
		return false
	}
	names[alias] = true
	used := false
	var walk func(m protoreflect.Message) bool
	walk = func(m protoreflect.Message) bool {
		switch x := m.Interface().(type) {
		case *pg_query.JoinExpr:
			if x == j {
				walk(x.Larg.ProtoReflect())
				return !used
			}
			if x.IsNatural || len(x.UsingClause) > 0 {
				used = true
				return false
			}
		case *pg_query.ColumnRef:
			used = namesScope(x, alias, names)
			return !used
		}
		eachChild(m, walk)
		return !used
	}
	walk(l.fromOf.ProtoReflect())
	return !used
}

// outputNames are the column names of the FROM subquery sub as
// PostgreSQL names them: the alias's column list, then each SELECT item's
// AS name, a column reference's last field, a call's function name; ok is
// false for an item named otherwise (FigureColname's other cases), which
// the caller takes as a name it cannot rule out.
func outputNames(sub *pg_query.RangeSubselect) (map[string]bool, bool) {
	names := map[string]bool{}
	q := sub.Subquery.GetSelectStmt()
	for i, t := range q.TargetList {
		rt := t.GetResTarget()
		switch {
		case i < len(sub.Alias.Colnames):
			names[sub.Alias.Colnames[i].GetString_().GetSval()] = true
		case rt.Name != "":
			names[rt.Name] = true
		case rt.GetVal().GetColumnRef() != nil:
			f := rt.GetVal().GetColumnRef().Fields
			names[f[len(f)-1].GetString_().GetSval()] = true
		case rt.GetVal().GetFuncCall() != nil:
			names[funcName(rt.GetVal().GetFuncCall())] = true
		default:
			return nil, false
		}
	}
	return names, true
}

// namesScope: the column reference c may name a column of the FROM item
// alias, whose column names (and alias) are names.
func namesScope(c *pg_query.ColumnRef, alias string, names map[string]bool) bool {
	f := c.Fields
	last := f[len(f)-1]
	if last.GetAStar() != nil && len(f) == 1 {
		return true // SELECT *
	}
	if len(f) == 1 {
		return names[last.GetString_().GetSval()]
	}
	return f[len(f)-2].GetString_().GetSval() == alias
}
