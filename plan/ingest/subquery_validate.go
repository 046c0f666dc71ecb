package ingest

import (
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// validate's part for subquery expressions: a subquery's relations are
// checked like the plan's own, with the input width of the query around
// it pushed on v.outer, so that an outer reference (steps_out k refers
// to the k-th enclosing query's input row) is checked against the width
// of the query it names. Whether the planner can run the subquery is
// optimize.Decorrelate's question; here only its well-formedness is.

// subquery checks a subquery expression over an input of w columns; its
// error is a *locErr (an error inside the subquery's relations carries
// their path below the expression's).
func (v *validator) subquery(s *substraitpb.Expression_Subquery, w int) error {
	v.subqueries++
	switch t := s.GetSubqueryType().(type) {
	case *substraitpb.Expression_Subquery_Scalar_:
		n, err := v.subRel(t.Scalar.GetInput(), w, "scalar.input")
		if err != nil {
			return err
		}
		if n != 1 {
			return bad("scalar subquery returns %d columns, want 1", n)
		}
	case *substraitpb.Expression_Subquery_InPredicate_:
		in := t.InPredicate
		if len(in.GetNeedles()) == 0 {
			return bad("IN predicate without needles")
		}
		for i, e := range in.GetNeedles() {
			if err := v.expr(e, w); err != nil {
				return within(err, "in_predicate.needles[%d]", i)
			}
		}
		n, err := v.subRel(in.GetHaystack(), w, "in_predicate.haystack")
		if err != nil {
			return err
		}
		if n != len(in.GetNeedles()) {
			return bad("IN predicate has %d needles and a haystack of %d columns", len(in.GetNeedles()), n)
		}
	case *substraitpb.Expression_Subquery_SetPredicate_:
		if t.SetPredicate.GetPredicateOp() == substraitpb.Expression_Subquery_SetPredicate_PREDICATE_OP_UNSPECIFIED {
			return bad("set predicate without an op")
		}
		if _, err := v.subRel(t.SetPredicate.GetTuples(), w, "set_predicate.tuples"); err != nil {
			return err
		}
	case *substraitpb.Expression_Subquery_SetComparison_:
		c := t.SetComparison
		if c.GetReductionOp() == substraitpb.Expression_Subquery_SetComparison_REDUCTION_OP_UNSPECIFIED {
			return bad("set comparison without a reduction op")
		}
		if c.GetComparisonOp() == substraitpb.Expression_Subquery_SetComparison_COMPARISON_OP_UNSPECIFIED {
			return bad("set comparison without a comparison op")
		}
		if err := v.expr(c.GetLeft(), w); err != nil {
			return within(err, "set_comparison.left")
		}
		n, err := v.subRel(c.GetRight(), w, "set_comparison.right")
		if err != nil {
			return err
		}
		if n != 1 {
			return bad("set comparison's subquery returns %d columns, want 1", n)
		}
	default:
		return bad("subquery without a type")
	}
	return nil
}

// subRel checks a subquery's relation, inside a query whose input has w
// columns, at path (relative to the subquery expression).
func (v *validator) subRel(r *substraitpb.Rel, w int, path string) (int, error) {
	v.outer = append(v.outer, w)
	n, err := v.rel(r, path)
	v.outer = v.outer[:len(v.outer)-1]
	if re, ok := err.(*relErr); ok {
		return 0, &locErr{kind: re.kind, msg: re.msg, segs: []string{re.path}}
	}
	return n, err
}

// outerRef checks an outer reference: a direct reference to a top-level
// field of the input of the query steps_out levels out.
func (v *validator) outerRef(f *substraitpb.Expression_FieldReference) error {
	steps := f.GetOuterReference().GetStepsOut()
	if len(v.outer) == 0 {
		return bad("outer field reference outside a subquery")
	}
	if steps < 1 || int64(steps) > int64(len(v.outer)) {
		return bad("outer field reference steps_out %d (the expression is %d subquery levels deep)", steps, len(v.outer))
	}
	d := f.GetDirectReference().GetStructField()
	if d == nil {
		return unsup("expression", "outer field reference that is not a direct reference to a field")
	}
	if d.GetChild() != nil {
		return unsup("expression", "nested field reference")
	}
	if w := v.outer[len(v.outer)-int(steps)]; d.GetField() < 0 || int(d.GetField()) >= w {
		return bad("outer field %d out of range (the query %d level(s) out has %d columns)", d.GetField(), steps, w)
	}
	return nil
}
