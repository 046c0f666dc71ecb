package sql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// An aggregate inside a subquery whose arguments name only an enclosing
// query's columns belongs to that query (PostgreSQL's parse_agg.c
// check_agg_arguments, agglevelsup): in
//
//	SELECT t.g FROM t GROUP BY t.g HAVING EXISTS (SELECT 1 FROM u WHERE u.y > sum(t.b))
//	SELECT (SELECT max(t.a) FROM u LIMIT 1) FROM t
//
// sum(t.b) and max(t.a) are aggregates of t's query, computed once per
// group of it (the second query is then an ungrouped aggregate, one
// row), and the subquery reads their values as outer references, as it
// reads a group key. The enclosing query collects such calls with its
// own (outerAggregates, selectStmt) and records them in
// lowerer.outerAggs; the subquery leaves them out of its own and
// resolves each to the enclosing query's measure column (outerAggRef).
//
// A call is taken when each of its argument columns is qualified by one
// of the enclosing query's FROM items and no FROM item of a query in
// between (the subquery's own included) has that name, which is how
// PostgreSQL resolves the qualifier; a call with an unqualified column, a
// column of both levels, or a subquery in its arguments is left to the
// subquery (as before: refused there).

// outerAggregates are the aggregate calls inside the subqueries of nodes
// that belong to the query whose FROM scope is from.
func outerAggregates(from *scope, nodes ...*pg_query.Node) []*pg_query.FuncCall {
	var out []*pg_query.FuncCall
	var walk func(m protoreflect.Message, shadow map[string]bool, inSub bool)
	walk = func(m protoreflect.Message, shadow map[string]bool, inSub bool) {
		switch x := m.Interface().(type) {
		case *pg_query.SelectStmt:
			if inSub {
				inner := map[string]bool{}
				for q := range shadow {
					inner[q] = true
				}
				for _, f := range x.FromClause {
					fromNames(f, inner)
				}
				shadow = inner
			}
		case *pg_query.SubLink:
			if t := x.GetTestexpr(); t != nil {
				walk(t.ProtoReflect(), shadow, inSub) // the enclosing query's own
			}
			if sub := x.GetSubselect(); sub != nil {
				walk(sub.ProtoReflect(), shadow, true)
			}
			return
		case *pg_query.FuncCall:
			if inSub && isAggregate(x) && x.Over == nil && argsOuterOnly(x, from, shadow) {
				out = append(out, x)
				return
			}
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c, shadow, inSub); return true })
	}
	for _, n := range nodes {
		if n != nil {
			walk(n.ProtoReflect(), map[string]bool{}, false)
		}
	}
	return out
}

// fromNames adds the names FROM item n gives its columns' qualifier.
func fromNames(n *pg_query.Node, names map[string]bool) {
	switch x := n.Node.(type) {
	case *pg_query.Node_RangeVar:
		if a := x.RangeVar.GetAlias(); a != nil {
			names[strings.ToLower(a.Aliasname)] = true
		} else {
			names[strings.ToLower(x.RangeVar.Relname)] = true
		}
	case *pg_query.Node_RangeSubselect:
		if a := x.RangeSubselect.GetAlias(); a != nil {
			names[strings.ToLower(a.Aliasname)] = true
		}
	case *pg_query.Node_RangeFunction:
		if a := x.RangeFunction.GetAlias(); a != nil {
			names[strings.ToLower(a.Aliasname)] = true
		}
		for _, f := range x.RangeFunction.GetFunctions() {
			// An unaliased function's columns are qualified by its name.
			if l := f.GetList(); l != nil && len(l.Items) > 0 {
				if fc := l.Items[0].GetFuncCall(); fc != nil {
					names[funcName(fc)] = true
				}
			}
		}
	case *pg_query.Node_JoinExpr:
		if a := x.JoinExpr.GetAlias(); a != nil {
			names[strings.ToLower(a.Aliasname)] = true
		}
		fromNames(x.JoinExpr.Larg, names)
		fromNames(x.JoinExpr.Rarg, names)
	default:
		names["\x00unknown"] = true // a FROM item not understood: take no call
	}
}

// argsOuterOnly reports a call whose argument columns (in its arguments,
// FILTER and ORDER BY) are all qualified by a FROM item of from that
// shadow does not hide, at least one, and no subquery among them.
func argsOuterOnly(fc *pg_query.FuncCall, from *scope, shadow map[string]bool) bool {
	if shadow["\x00unknown"] {
		return false
	}
	var parts []*pg_query.Node
	parts = append(parts, fc.Args...)
	parts = append(parts, fc.AggFilter)
	parts = append(parts, fc.AggOrder...)
	n, ok := 0, true
	for _, p := range parts {
		if p == nil {
			continue
		}
		walkNodes(p.ProtoReflect(), func(m protoreflect.Message) bool {
			switch x := m.Interface().(type) {
			case *pg_query.SubLink:
				ok = false
			case *pg_query.ColumnRef:
				n++
				if len(x.Fields) != 2 || x.Fields[0].GetString_() == nil {
					ok = false
					break
				}
				q := x.Fields[0].GetString_().GetSval()
				ok = ok && !shadow[strings.ToLower(q)] && from.hasQual(q)
			}
			return ok
		})
	}
	return ok && n > 0
}

// ownCalls drops from calls those an enclosing query took (outerAggs).
func (l *lowerer) ownCalls(calls []*pg_query.FuncCall) []*pg_query.FuncCall {
	if len(l.outerAggs) == 0 {
		return calls
	}
	out := calls[:0:0]
	for _, fc := range calls {
		if !l.outerAggs[fc] {
			out = append(out, fc)
		}
	}
	return out
}

// outerAggRef is the enclosing query's measure column of the call f, an
// outer reference from s; ok is false when no enclosing scope holds it.
func (l *lowerer) outerAggRef(f *pg_query.FuncCall, s *scope) (value, bool, error) {
	if s.shadow > 0 {
		return value{}, false, nil
	}
	base := s
	if s.aggs != nil && s.group != nil && s.group.input != nil {
		base = s.group.input
	}
	steps := uint32(1)
	for o := base.outer; o != nil; o, steps = o.outer, steps+1 {
		i, ok := o.aggs[f]
		if !ok {
			continue
		}
		e, err := expr.NewRootFieldRef(expr.NewStructFieldRef(i), o.record())
		if err != nil {
			return value{}, false, err
		}
		e.Root = expr.OuterReference(steps)
		return value{e: e, loc: f.Location, name: funcName(f)}, true, nil
	}
	return value{}, false, nil
}
