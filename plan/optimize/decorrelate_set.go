package optimize

import (
	"fmt"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// setSubquery is what a set subquery (EXISTS, IN, op ANY, op ALL)
// compares, for the semi/anti join of a WHERE conjunct (setJoin) and the
// mark join of a value (markJoin) alike.
type setSubquery struct {
	rel  *substraitpb.Rel
	path string                    // rel's path, for errors
	xs   []*substraitpb.Expression // the outer operands (IN's needles; none for EXISTS)
	fn   string                    // their comparison with the subquery's columns
	all  bool                      // ALL rather than ANY
}

// setSubqueryOf takes sq (at path, ending in ".subquery") apart; a kind or
// comparison this package does not plan, or a subquery inside an operand,
// is a typed unsupported error naming the path.
func setSubqueryOf(sq *substraitpb.Expression_Subquery, path string) (setSubquery, error) {
	var out setSubquery
	switch t := sq.GetSubqueryType().(type) {
	case *substraitpb.Expression_Subquery_SetPredicate_:
		if t.SetPredicate.GetPredicateOp() != substraitpb.Expression_Subquery_SetPredicate_PREDICATE_OP_EXISTS {
			return out, unsupportedAt("expression", path, "set predicate %s", t.SetPredicate.GetPredicateOp())
		}
		out.rel, out.path = t.SetPredicate.GetTuples(), path+".set_predicate.tuples"
	case *substraitpb.Expression_Subquery_InPredicate_:
		out.rel, out.path = t.InPredicate.GetHaystack(), path+".in_predicate.haystack"
		out.xs, out.fn = t.InPredicate.GetNeedles(), "equal"
	case *substraitpb.Expression_Subquery_SetComparison_:
		c := t.SetComparison
		out.rel, out.path = c.GetRight(), path+".set_comparison.right"
		out.xs, out.fn = []*substraitpb.Expression{c.GetLeft()}, cmpFuncs[c.GetComparisonOp()]
		out.all = c.GetReductionOp() == substraitpb.Expression_Subquery_SetComparison_REDUCTION_OP_ALL
		if out.fn == "" {
			return out, unsupportedAt("expression", path, "set comparison op %s", c.GetComparisonOp())
		}
	default:
		return out, unsupportedAt("expression", path, "subquery type %T", t)
	}
	for i, x := range out.xs {
		if hasSubquery(x) {
			return out, unsupportedAt("expression", fmt.Sprintf("%s: operand %d", path, i), "subquery in the operand of a subquery predicate")
		}
	}
	return out, nil
}
