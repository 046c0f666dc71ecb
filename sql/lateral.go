package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// LATERAL (SELECT ...) in FROM may name the FROM items before it (in a
// FROM list) or the join's left side (JOIN LATERAL): PostgreSQL's parser
// makes the subquery a query level whose outer Vars (varlevelsup 1) are
// those items' columns, and plans the join as a nested loop that re-runs
// the subquery per outer row. It is lowered here as that query level: a
// JoinRel marked lateral (substraitfn.LateralJoinURL) whose right input
// reaches the left's row through outer references steps_out 1 (the
// query around the whole FROM: steps_out 2, and so on). The front end
// builds no join for it: the optimizer unnests the dependent join
// (optimize.Decorrelate: decorrelate_lateral.go, decorrelate_general.go),
// once, for every producer.

// isLateral reports a FROM item written LATERAL.
func isLateral(n *pg_query.Node) bool {
	return n.GetRangeSubselect().GetLateral() || n.GetRangeFunction().GetLateral()
}

// anyLateral reports whether some FROM item is LATERAL, or a function
// after the first (implicitly LATERAL: lateralfn.go).
func anyLateral(items []*pg_query.Node) bool {
	for i, n := range items {
		if isLateral(n) || (i > 0 && n.GetRangeFunction() != nil) {
			return true
		}
	}
	return false
}

// lateralItem lowers the LATERAL item n, which may name left's columns
// (the items before it) and, through left's outer scopes, the queries
// around.
func (l *lowerer) lateralItem(n *pg_query.Node, left *scope) (plan.Rel, *scope, error) {
	rs := n.GetRangeSubselect()
	if rs == nil {
		// A function not reading left (lateralfn.go has the ones that
		// do): LATERAL changes nothing.
		return l.fromItem(n)
	}
	q := rs.Subquery.GetSelectStmt()
	if q == nil {
		return nil, nil, fmt.Errorf("%w: subquery in FROM", ErrUnsupported)
	}
	ls := *left
	ls.outer = l.outer
	saved := l.outer
	l.outer, l.corrNext = &ls, true
	l.lateral++
	rel, names, err := l.selectStmt(q, nil)
	l.lateral--
	l.outer, l.corrNext = saved, false
	if err != nil {
		return nil, nil, err
	}
	rel, sc, err := l.derivedScope(rel, names, "", rs.Alias)
	if err == nil {
		pulledConstants(q, rel, sc)
	}
	return rel, sc, err
}

// lateralJoin is the lateral join of left and right (lowered by
// lateralItem) of type jt on cond (nil: true).
func (l *lowerer) lateralJoin(left, right plan.Rel, cond expr.Expression, jt plan.JoinType) (plan.Rel, error) {
	if cond == nil {
		cond = expr.NewPrimitiveLiteral(true, false)
	}
	j, err := l.b.Join(left, right, cond, jt)
	if err != nil {
		return nil, fmt.Errorf("%w: LATERAL join: %w", ErrInvalid, err)
	}
	j.SetAdvancedExtension(substraitfn.LateralExtension())
	return j, nil
}
