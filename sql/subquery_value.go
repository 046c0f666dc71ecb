package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// An EXISTS, IN or op ANY/ALL subquery anywhere an expression may be (the
// SELECT list, under OR or NOT, in CASE, HAVING, ORDER BY) lowers to the
// same Substrait subquery expression a WHERE conjunct does (setExpr):
// SetPredicate EXISTS, InPredicate for IN (= ANY), not() of one for NOT
// IN (<> ALL), and SetComparison for the other operators. The optimizer
// makes a value a mark join (plan/optimize/decorrelate_mark.go), with
// PostgreSQL's NULL rules; where it cannot (a subquery in an aggregate's
// argument, a JOIN's ON) it refuses it with its path.

// setValue lowers the EXISTS, ANY or ALL subquery sl over sc's columns as
// a value.
func (l *lowerer) setValue(sl *pg_query.SubLink, sc *scope) (value, error) {
	k := setCompare
	if _, sk := setSubLink(&pg_query.Node{Node: &pg_query.Node_SubLink{SubLink: sl}}); sk != setNone {
		k = sk
	}
	var e expr.Expression
	var err error
	if k == setCompare && sl.Testexpr.GetRowExpr() != nil {
		e, err = l.rowSetComparison(sl, sc) // rowcmp.go
	} else {
		e, err = l.setExpr(sl, k, sc)
	}
	if err != nil {
		return value{}, err
	}
	v := value{e: e, loc: sl.Location}
	if k == setExists {
		v.name = "exists" // PostgreSQL's column name for EXISTS (...)
	}
	return v, nil
}

// subqueryCmpOps are the comparison operators of op ANY/ALL.
var subqueryCmpOps = map[string]plan.SetComparisonComparisonOp{
	"=": plan.SetComparisonComparisonOpEq, "<>": plan.SetComparisonComparisonOpNe, "!=": plan.SetComparisonComparisonOpNe,
	"<": plan.SetComparisonComparisonOpLt, ">": plan.SetComparisonComparisonOpGt,
	"<=": plan.SetComparisonComparisonOpLe, ">=": plan.SetComparisonComparisonOpGe,
}

// setComparison is the reduction and comparison of the op ANY/ALL
// subquery sl.
func (l *lowerer) setComparison(sl *pg_query.SubLink) (plan.SetComparisonReductionOp, plan.SetComparisonComparisonOp, error) {
	op := ""
	if len(sl.OperName) == 1 {
		op = sl.OperName[0].GetString_().GetSval()
	}
	cmp, ok := subqueryCmpOps[op]
	if !ok {
		return 0, 0, fmt.Errorf("%w: operator %q with ANY or ALL (subquery)%s", ErrUnsupported, op, l.src.at(sl.Location))
	}
	red := plan.SetComparisonReductionOpAny
	if sl.SubLinkType == pg_query.SubLinkType_ALL_SUBLINK {
		red = plan.SetComparisonReductionOpAll
	}
	return red, cmp, nil
}
