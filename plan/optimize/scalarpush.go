package optimize

import (
	"math"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// The scalar-subquery push to one FROM item (Decorrelate's filter, with
// semipush.go's IN/EXISTS push). A filter conjunct holding scalar
// subqueries over a tree of inner joins and cross products, whose own
// column references and its subqueries' outer references all read ONE
// item of the tree, is a filter on that item: PostgreSQL places a qual
// by the relations it reads, a SubPlan's or InitPlan's parameters
// counted as the columns they pass (distribute_qual_to_rels over
// pull_varnos), so it is that relation's restriction, evaluated at its
// scan:
//
//	Filter(a × d × s, d.month = (SELECT ...) AND ...)
//	  becomes Filter(a × Filter(d ⟕single (SELECT ...), d.month = v) × s, ...)
//
// TPC-DS Q6 keeps the 31 days of one month by d_month_seq = (SELECT
// DISTINCT d_month_seq ... ) and the items priced over 1.2 times their
// category's average by a correlated scalar subquery on item alone:
// applied on top, both ran over all 2.9M joined sales rows at SF 1;
// applied to date_dim and item, the hash tables store_sales probes hold
// 31 days and the items that pass.
//
// Left where it is, as semipush.go leaves its conjuncts: a conjunct on the
// probe item (the joins with the build sides only shrink the probe rows
// it is then evaluated on), one naming no item or several, one holding an
// IN, EXISTS or set comparison used as a value (a mark join), and one
// referencing an enclosing query.

// scalarTarget returns the item (of items) the conjunct e, holding scalar
// subqueries, may be applied to, or -1. Its subqueries' own subqueries
// must be rewritten already (every outer reference left in them is to
// this query).
func scalarTarget(e *substraitpb.Expression, path string, items []item, probe int) int {
	subs := subqueriesIn(e, path)
	if len(subs) == 0 {
		return -1
	}
	lo, hi := math.MaxInt, -1
	span := func(f int) { lo, hi = min(lo, f), max(hi, f) }
	ok := true
	for _, s := range subs {
		sc := s.e.GetSubquery().GetScalar()
		if sc == nil {
			return -1
		}
		walkRefs(sc.GetInput(), func(f *substraitpb.Expression_FieldReference) {
			if o := f.GetOuterReference(); o != nil {
				ok = ok && o.GetStepsOut() == 1
				span(int(f.GetDirectReference().GetStructField().GetField()))
			}
		})
	}
	walkExprs(e.ProtoReflect(), func(x *substraitpb.Expression) bool {
		if s := x.GetSelection(); s != nil {
			if s.GetOuterReference() != nil {
				ok = false
			}
			span(int(s.GetDirectReference().GetStructField().GetField()))
		}
		return true
	})
	if !ok || hi < 0 {
		return -1
	}
	return itemHolding(items, lo, hi, probe)
}

// moveScalarTo shifts the references of the scalar-subquery conjunct e
// (in place) by -off, to the columns of the item it is applied to: its
// own root references, and its subqueries' outer references (steps_out
// 1).
func moveScalarTo(e *substraitpb.Expression, path string, off int) {
	shift := func(f *substraitpb.Expression_FieldReference) {
		if d := f.GetDirectReference().GetStructField(); d != nil {
			d.Field -= int32(off)
		}
	}
	for _, s := range subqueriesIn(e, path) {
		walkRefs(s.e.GetSubquery().GetScalar().GetInput(), func(f *substraitpb.Expression_FieldReference) {
			if f.GetOuterReference() != nil {
				shift(f)
			}
		})
	}
	walkExprs(e.ProtoReflect(), func(x *substraitpb.Expression) bool {
		if s := x.GetSelection(); s != nil && s.GetOuterReference() == nil {
			shift(s)
		}
		return true
	})
}

// rewriteScalarInputs decorrelates the subqueries of e's scalar
// subqueries first, so that every outer reference left in them is to
// this query (scalar's rewrite of them again finds none).
func (u *unnester) rewriteScalarInputs(e *substraitpb.Expression, path string) error {
	for _, s := range subqueriesIn(e, path) {
		if sc := s.e.GetSubquery().GetScalar(); sc != nil {
			in, err := u.rel(sc.GetInput(), s.path+".subquery.scalar.input")
			if err != nil {
				return err
			}
			sc.Input = in
		}
	}
	return nil
}
