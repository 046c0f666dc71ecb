package sql

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// The HAVING move. PostgreSQL's subquery_planner puts a HAVING conjunct
// in the WHERE unless the query has grouping sets (parse->groupClause &&
// parse->groupingSets) or the conjunct holds aggregates, volatile
// functions or subplans: under a plain GROUP BY it moves there, with no
// GROUP BY a copy goes there and the HAVING keeps it. A FALSE or NULL
// conjunct moved so folds the WHERE to FALSE before any row is read, so
// a WHERE that would raise on a row raises nothing (... WHERE DATE
// '2023-12-31' + (c - 2147483648) <> d HAVING FALSE), nor does an
// aggregate's argument; kept in the HAVING under grouping sets, every
// row is aggregated first (difftest seed 20261230 case 31349: avg(c3 *
// c3) overflows under GROUPING SETS ((c1), (c1), (c1, c1)) HAVING FALSE).
//
// "Grouping sets" is what parse analysis leaves of them: parseCheckAggregates
// drops the grouping sets when they expand (expand_grouping_sets, with
// GROUP BY DISTINCT's deduplication) to one set and groupClause is not
// empty, so GROUPING SETS ((a)) or GROUP BY DISTINCT GROUPING SETS ((a),
// (a)) is a plain GROUP BY a; and sets that are all () leave groupClause
// empty, so GROUPING SETS ((), ()) puts a copy in the WHERE as no GROUP
// BY does.
//
// Only the constant FALSE or NULL conjuncts are moved here, those written
// so (havingForWhere) and those with aggregates that fold to a constant
// (sum(k) <> NULL: groupby.go gates the aggregate's input). A HAVING over
// group keys stays in the HAVING, so an aggregate's argument is still
// evaluated on the rows the move would have dropped (GROUP BY c1 HAVING
// c1 = 'x': PostgreSQL aggregates the 'x' rows only): not done yet.

// havingForWhere is the part of s's HAVING that goes into its WHERE, the
// conjuncts added at the WHERE's end; sc is the FROM's scope, over which
// the GROUP BY's grouping sets are expanded. The HAVING still lowers them
// (a copy with no GROUP BY; under a plain GROUP BY a FALSE filter over no
// groups, as PostgreSQL's move would leave none).
func (l *lowerer) havingForWhere(s *pg_query.SelectStmt, sc *scope) []*pg_query.Node {
	var add []*pg_query.Node
	for _, c := range andArgs(s.HavingClause) {
		if !containsSubLink(c) && len(aggregateCalls(c)) == 0 && l.constantFalse(c, &scope{}) {
			add = append(add, c)
		}
	}
	if len(add) == 0 || l.havingStaysForSets(s, sc) {
		return nil
	}
	return add
}

// havingStaysForSets: s's GROUP BY has grouping sets after parse analysis
// (see above), so subquery_planner keeps every HAVING conjunct in the
// HAVING. A GROUP BY that does not lower keeps the HAVING as written: the
// aggregate's lowering raises its error.
func (l *lowerer) havingStaysForSets(s *pg_query.SelectStmt, sc *scope) bool {
	if !slices.ContainsFunc(s.GroupClause, func(n *pg_query.Node) bool { return n.GetGroupingSet() != nil }) {
		return false
	}
	keys, _, _, sets, multi, err := l.groupingSets(s, sc) // groupingsets.go
	if err != nil {
		return true
	}
	return multi && len(keys) > 0 && len(sets) > 1
}
