package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// PostgreSQL pulls a simple subquery in FROM up into the query around it
// (pull_up_subqueries) and replaces each reference to one of its output
// columns with the item's expression, before it folds constants. So an
// item that is a constant is one in the query around as well:
// CAST(x.c1 AS numeric) / CAST(1 / 2147483646 AS numeric) over
// CROSS JOIN LATERAL (SELECT CASE WHEN TRUE THEN 0::int2 ELSE a.c2 END
// AS c1) x is 0 / 0, which raises while planning even over an empty
// table (difftest seed 20261239 case 119101). The lowering does the same:
// such a column carries its constant (column.konst) and a reference to
// it, from this query or a subquery inside it, lowers to the constant.
// (A reference through GROUP BY is left a column: PostgreSQL would
// substitute there too.) PostgreSQL wraps the item in a
// PlaceHolderVar, which no folding sees through, where the subquery is
// on the nullable side of an outer join above the reference; those
// columns drop their constant (from.go's and using.go's nullable).

// simpleSubquery reports whether PostgreSQL pulls sel up
// (is_simple_subquery): a plain SELECT with no aggregate, window
// function or set-returning call in its SELECT list, no GROUP BY,
// HAVING, ORDER BY, DISTINCT, LIMIT, OFFSET or WITH. (PostgreSQL keeps a
// SELECT list with a volatile call too; stablerow has no volatile
// function.)
func simpleSubquery(sel *pg_query.SelectStmt) bool {
	if sel == nil || sel.Op != pg_query.SetOperation_SETOP_NONE && sel.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED ||
		len(sel.GroupClause) > 0 || sel.HavingClause != nil || len(sel.SortClause) > 0 || len(sel.DistinctClause) > 0 ||
		sel.LimitCount != nil || sel.LimitOffset != nil || sel.WithClause != nil || len(sel.ValuesLists) > 0 ||
		len(sel.LockingClause) > 0 || len(sel.WindowClause) > 0 {
		return false
	}
	var targets []*pg_query.Node
	for _, t := range sel.TargetList {
		targets = append(targets, t.GetResTarget().GetVal())
	}
	return len(aggregateCalls(targets...)) == 0 && len(windowCalls(targets...)) == 0 &&
		!setReturningCall(targets...)
}

// projectItem is the expression rel computes for its output i when rel is
// a project and the output one of its expressions (not a passed-through
// input field).
func projectItem(rel plan.Rel, i int) (expr.Expression, bool) {
	p, ok := rel.(*plan.ProjectRel)
	if !ok {
		return nil, false
	}
	w := int(p.Input().RecordType().FieldCount())
	m := i
	if mapping := p.OutputMapping(); mapping != nil {
		if i >= len(mapping) {
			return nil, false
		}
		m = int(mapping[i])
	}
	if m < w || m-w >= len(p.Expressions()) {
		return nil, false
	}
	return p.Expressions()[m-w], true
}

// pulledConstants sets konst on the columns of sc, the scope of the
// subquery sel in FROM lowered to rel, whose items are constants
// PostgreSQL would substitute into the query around.
func pulledConstants(sel *pg_query.SelectStmt, rel plan.Rel, sc *scope) {
	if !simpleSubquery(sel) {
		return
	}
	for i := range sc.cols {
		if e, ok := projectItem(rel, i); ok {
			if _, lit := literalOf(e); lit {
				sc.cols[i].konst = e
			}
		}
	}
}
