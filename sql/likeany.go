package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// x [NOT] LIKE|ILIKE ANY|ALL (SELECT p ...) is PostgreSQL's SubPlan over
// the LIKE operator: per subquery row x LIKE p, OR-ed for ANY and AND-ed
// for ALL in three-valued logic (false over no row for ANY, true for
// ALL; NULL when no row decides and one is NULL). Substrait's set
// comparison has no LIKE, so it is written as rowSetComparison writes a
// row's: true = ANY|ALL (SELECT x LIKE p ...), the subquery's rows
// projected to the match with x read from inside as an outer reference,
// which the optimizer unnests as any correlated set comparison (a mark
// join whose condition is the LIKE; semi or anti join as a conjunct).
var likeSubqueryOps = map[string]struct{ ci, not bool }{
	"~~": {}, "~~*": {ci: true}, "!~~": {not: true}, "!~~*": {ci: true, not: true},
}

// likeSetComparison lowers the [NOT] LIKE|ILIKE ANY|ALL subquery sl over
// sc; ok is false when sl's operator is no LIKE.
func (l *lowerer) likeSetComparison(sl *pg_query.SubLink, sc *scope) (e expr.Expression, ok bool, err error) {
	op := ""
	if len(sl.OperName) == 1 {
		op = sl.OperName[0].GetString_().GetSval()
	}
	lk, ok := likeSubqueryOps[op]
	if !ok || sl.Testexpr.GetRowExpr() != nil {
		return nil, false, nil
	}
	xv, err := l.expr(sl.Testexpr, sc)
	if err != nil {
		return nil, true, err
	}
	x, err := l.likeOperand(xv)
	if err != nil {
		return nil, true, err
	}
	if hasSubquery(x) {
		return nil, true, fmt.Errorf("%w: a subquery in the operand of LIKE ANY or ALL (subquery)%s", ErrUnsupported, l.src.at(sl.Location))
	}
	rel, _, err := l.rowSubqueryRel(sl, 1, []kind{kindString}, sc)
	if err != nil {
		return nil, true, err
	}
	rt := rel.RecordType()
	ye, err := expr.NewRootFieldRef(expr.NewStructFieldRef(0), &rt)
	if err != nil {
		return nil, true, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	pat, err := l.coerce(value{e: ye, loc: sl.Location}, kindString)
	if err != nil {
		return nil, true, err
	}
	var opts []substraitfn.Option
	if lk.ci {
		opts = []substraitfn.Option{{Name: "case_sensitivity", Prefs: []string{"CASE_INSENSITIVE"}}}
	}
	m, err := l.callOpts(urnString, "like", sl.Location, opts, outerShift(x), pat)
	if err == nil && lk.not {
		m, err = l.call(urnBoolean, "not", sl.Location, m)
	}
	if err != nil {
		return nil, true, err
	}
	if rel, err = l.b.ProjectRemap(rel, []int32{1}, m); err != nil {
		return nil, true, fmt.Errorf("%w: LIKE subquery: %w", ErrInvalid, err)
	}
	red := plan.SetComparisonReductionOpAny
	if sl.SubLinkType == pg_query.SubLinkType_ALL_SUBLINK {
		red = plan.SetComparisonReductionOpAll
	}
	if e, err = l.b.SetComparisonSubquery(expr.NewPrimitiveLiteral(true, false), rel, red, plan.SetComparisonComparisonOpEq); err != nil {
		return nil, true, fmt.Errorf("%w: LIKE %s subquery: %w", ErrInvalid, red, err)
	}
	return e, true, nil
}
