package sql

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// The FALSE-WHERE rule (whereSubqueries; fromWhere over several FROM
// items): a WHERE with a constant FALSE or NULL conjunct drops the
// subqueries PostgreSQL plans only after folding it. PostgreSQL's
// subquery_planner runs preprocess_expression on the WHERE
// (eval_const_expressions, then SS_process_sublinks, which plans its
// subqueries) before it moves a HAVING conjunct without aggregates into
// the WHERE, so only the WHERE's own conjuncts decide whether its
// subqueries are planned: a FALSE that came from the HAVING
// (whereWithHaving) still empties the WHERE, but a constant in an
// uncorrelated EXISTS of the WHERE that raises raises (difftest seed
// 20261229 case 26486).

// ownWhere is the statement's WHERE as written while its lowering sees it
// with HAVING conjuncts added (lowerer.ownWhere).
type ownWhere struct {
	where *pg_query.Node
}

// whereFalse: the FALSE-WHERE rule applies to a WHERE whose conjuncts
// without subqueries are plain: one of them is constant FALSE or NULL
// and, when HAVING conjuncts were moved into the WHERE, one of the
// WHERE's own conjuncts (after canonicalize_qual's folding) is.
func (l *lowerer) whereFalse(plain []*pg_query.Node, sc *scope) bool {
	constFalse := func(c *pg_query.Node) bool { return !containsSubLink(c) && l.constantFalse(c, sc) }
	if !slices.ContainsFunc(plain, constFalse) {
		return false
	}
	if l.ownWhere == nil {
		return true
	}
	if l.ownWhere.where == nil {
		return false
	}
	own, err := l.canonicalQual(l.ownWhere.where, sc, "in WHERE")
	if err != nil {
		return true // the WHERE's own lowering raises it
	}
	return slices.ContainsFunc(andArgs(own), constFalse)
}
