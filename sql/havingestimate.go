package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// The WHERE beside a moved HAVING. subquery_planner folds the WHERE
// (preprocess_expression) before it moves a constant FALSE or NULL HAVING
// conjunct into it (havingmove.go), and the two are not folded together
// again: the WHERE's own conjuncts stay restriction clauses of their
// relations beside the constant (a relation is dummy only when its one
// restriction is the constant: relation_excluded_by_constraints), so
// PostgreSQL still estimates them (estimatequal.go) and a stable cast on
// a comparison's column-free side raises while planning: ... WHERE a.k <
// CAST(CAST(TIMESTAMP '...' AS TEXT) AS BIGINT) GROUP BY 1 HAVING NULL
// raises, ... WHERE a.k < CAST(...) AND NULL does not (difftest seed
// 20261241 case 214671). Here the lowered WHERE is one FALSE filter, so
// the WHERE's own conditions are kept apart for the estimate, on the
// relation the WHERE filters.

// keepWhereEstimates records the conditions of where, the WHERE as
// written, over rel (scope sc), for estimatedQuals to estimate when it
// reaches rel: the conjuncts after canonicalize_qual's folding that hold
// no subquery (those lower with the subquery's own planning, as
// whereSubqueries does). A WHERE that folds to a constant plans no scan
// and is not estimated (estimateCond), nor is one that does not lower
// (the statement's lowering reports that).
func (l *lowerer) keepWhereEstimates(rel plan.Rel, sc *scope, where *pg_query.Node) {
	own, err := l.canonicalQual(where, sc, "in WHERE")
	if err != nil || own == nil {
		return
	}
	var conds []expr.Expression
	for _, c := range andArgs(own) {
		if containsSubLink(c) {
			continue
		}
		cond, ok := l.qualCondition(c, sc) // sublinkfold.go
		if !ok {
			return
		}
		conds = append(conds, cond)
	}
	if len(conds) == 0 {
		return
	}
	if l.whereEstimates == nil {
		l.whereEstimates = map[plan.Rel][]expr.Expression{}
	}
	l.whereEstimates[rel] = append(l.whereEstimates[rel], conds...)
}
