package optimize

import (
	"strings"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// An outer join's ON condition may hold subqueries (t LEFT JOIN u ON
// u.x = t.a AND EXISTS (SELECT 1 FROM v WHERE v.y = t.b)). PostgreSQL
// runs each as a SubPlan per candidate pair (the join's joinqual,
// ExecQual in ExecNestLoop/ExecHashJoin's per-match check): a pair whose
// condition is false or NULL does not match, and a preserved row that
// matches no pair is NULL-extended. The condition is a dependent join
// predicate over the pairs, so it is unnested over them as "Unnesting
// Arbitrary Queries" (Neumann and Kemper, 2015) unnests any dependent
// join, the way DuckDB's FlattenDependentJoins treats an arbitrary join
// condition: with D the distinct rows of a preserved side (the domain,
// as decorrelate_general.go builds it),
//
//	L ⟕c R  =  L ⟕ P on L IS NOT DISTINCT FROM D   where P = σc(D × R)
//	L ⟖c R  =  P ⟖ R on D IS NOT DISTINCT FROM R   where P = σc(L × D)
//	L ⟗c R  =  (L ⟕ P' on L ≡ Dl) ⟗ R on P'.m AND Dr ≡ R
//	                                         where P' = σc(Dl × Dr), m = true
//
// P is an inner join's filter, decorrelated like any (filter: its plain
// conjuncts join first, its subqueries become semi, anti, mark and
// single joins of the pairs), so every subquery, reading either side or
// both, is computed for the pairs the condition's other conjuncts let
// through, as PostgreSQL's per-pair SubPlan is. D has the side's columns
// in its order, so the condition reads P as it read the join. Each copy
// of a preserved row meets the pairs of its values (its own value
// compares IS NOT DISTINCT FROM, so a NULL column meets its D row), and
// a preserved row without any is NULL-extended by the outer join around
// P. In the FULL join, the mark m (NULL where no pair met the left row)
// keeps a NULL-extended left row from meeting a right row of NULLs.
//
// A conjunct whose subquery reads the nullable side only (of a LEFT or
// RIGHT join) is not part of the pairs: PostgreSQL pushes such an ON
// qual down to the nullable side's scan (distribute_qual_to_rels), so
// its SubPlan runs once per nullable row, whether or not a preserved row
// meets it (a subquery raising "more than one row" on such a row raises
// there too). It filters the nullable input here as well, decorrelated
// as any filter; the pairs take the rest.

// outerJoinSubqueries rewrites the LEFT, RIGHT or FULL join j (relation r)
// whose condition holds subqueries as above; ok is false (the caller
// refuses it) for another join type or a post-join filter (applied after
// the NULL extension, it is not part of the pairs' condition).
func (u *unnester) outerJoinSubqueries(r *substraitpb.Rel, j *substraitpb.JoinRel, path string) (bool, error) {
	if j.GetPostJoinFilter() != nil {
		return false, nil
	}
	t := j.GetType()
	switch t {
	case substraitpb.JoinRel_JOIN_TYPE_LEFT, substraitpb.JoinRel_JOIN_TYPE_RIGHT, substraitpb.JoinRel_JOIN_TYPE_OUTER:
	default:
		return false, nil
	}
	l, rt := j.GetLeft(), j.GetRight()
	lw, rw := u.width(l), u.width(rt)
	var err error
	if l, rt, err = u.pushNullableConjuncts(j, lw, rw, path); err != nil {
		return false, err
	}
	if !hasSubquery(j.GetExpression()) {
		// Every subquery went to the nullable side: the join stays.
		j.Left, j.Right = l, rt
		return true, nil
	}
	// The pairs' sides: a preserved side's distinct rows, the other
	// side itself.
	pl, pr := l, rt
	if t != substraitpb.JoinRel_JOIN_TYPE_RIGHT {
		pl = u.newDomain(l, iota(lw)).rel
	}
	if t != substraitpb.JoinRel_JOIN_TYPE_LEFT {
		pr = u.newDomain(rt, iota(rw)).rel
	}
	cross := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
		Common: direct(), Left: pl, Right: pr, Expression: trueExpr(), Type: substraitpb.JoinRel_JOIN_TYPE_INNER,
	}}}, lw+rw)
	f := &substraitpb.FilterRel{Common: direct(), Input: cross, Condition: j.GetExpression()}
	pairs, err := u.filter(u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: f}}, lw+rw), f, path)
	if err != nil {
		return false, err
	}
	// same: side columns at a and b compare IS NOT DISTINCT FROM.
	same := func(a, b, n int) []*substraitpb.Expression {
		out := make([]*substraitpb.Expression, n)
		for i := range out {
			out[i] = u.call("is_not_distinct_from", requiredBoolean, fieldExpr(a+i), fieldExpr(b+i))
		}
		return out
	}
	join := func(left, right *substraitpb.Rel, on []*substraitpb.Expression, jt substraitpb.JoinRel_JoinType) *substraitpb.Rel {
		return u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
			Common: direct(), Left: left, Right: right, Expression: u.and(on), Type: jt,
		}}}, u.width(left)+u.width(right))
	}
	// out is the rewritten join; lpos and rpos where the original
	// left's and right's columns are in it.
	var out *substraitpb.Rel
	var rpos int
	switch t {
	case substraitpb.JoinRel_JOIN_TYPE_LEFT: // L, P (D, R)
		out, rpos = join(l, pairs, same(0, lw, lw), t), 2*lw
	case substraitpb.JoinRel_JOIN_TYPE_RIGHT: // P (L, D), R
		out, rpos = join(pairs, rt, same(lw, lw+rw, rw), t), lw+rw
	default: // L, P' (Dl, Dr, m), R
		marked := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Project{Project: &substraitpb.ProjectRel{
			Common: direct(), Input: pairs, Expressions: []*substraitpb.Expression{trueExpr()},
		}}}, lw+rw+1)
		left := join(l, marked, same(0, lw, lw), substraitpb.JoinRel_JOIN_TYPE_LEFT)
		m := 2*lw + rw
		on := append([]*substraitpb.Expression{fieldExpr(m)}, same(2*lw, m+1, rw)...)
		out, rpos = join(left, rt, on, t), m+1
	}
	// The join's output: its emit over the left's then the right's
	// columns, read where they are now.
	mapping := iota32(0, lw+rw)
	if e := j.GetCommon().GetEmit(); e != nil {
		mapping = append([]int32(nil), e.GetOutputMapping()...)
	}
	for i, m := range mapping {
		if int(m) >= lw {
			mapping[i] = m - int32(lw) + int32(rpos)
		}
	}
	oj := out.GetJoin()
	oj.Common = &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: mapping}}}
	oj.AdvancedExtension = j.GetAdvancedExtension()
	r.RelType = out.RelType
	u.made(r, len(mapping))
	return true, nil
}

// pushNullableConjuncts moves the conjuncts of the LEFT or RIGHT join j's
// condition that hold a subquery reading its nullable side only (at
// least one field of it, none of the other) into a filter over that
// side, decorrelated; it returns the join's new inputs (lw and rw wide)
// and leaves the other conjuncts in j's condition.
func (u *unnester) pushNullableConjuncts(j *substraitpb.JoinRel, lw, rw int, path string) (*substraitpb.Rel, *substraitpb.Rel, error) {
	l, rt := j.GetLeft(), j.GetRight()
	lo, hi, side := lw, lw+rw, &rt // the nullable side's fields in the join's space
	switch j.GetType() {
	case substraitpb.JoinRel_JOIN_TYPE_LEFT:
	case substraitpb.JoinRel_JOIN_TYPE_RIGHT:
		lo, hi, side = 0, lw, &l
	default:
		return l, rt, nil
	}
	var keep, push []*substraitpb.Expression
	for _, c := range u.conjuncts(j.GetExpression(), path+": expression") {
		in, out := false, false
		eachJoinRef(c.e, func(f *substraitpb.Expression_FieldReference) {
			n := int(f.GetDirectReference().GetStructField().GetField())
			in, out = in || (n >= lo && n < hi), out || n < lo || n >= hi
		})
		if !hasSubquery(c.e) || !in || out {
			keep = append(keep, c.e)
			continue
		}
		shiftSubqueryRefs(c.e, -lo) // to the nullable input's fields
		push = append(push, c.e)
	}
	if len(push) == 0 {
		return l, rt, nil
	}
	if len(keep) == 0 {
		keep = []*substraitpb.Expression{trueExpr()}
	}
	j.Expression = u.and(keep)
	w := hi - lo
	f := &substraitpb.FilterRel{Common: direct(), Input: *side, Condition: u.and(push)}
	r, err := u.filter(u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: f}}, w), f, path+".pushed")
	if err != nil {
		return nil, nil, err
	}
	*side = r
	return l, rt, nil
}

// iota is 0, 1, ..., n-1.
func iota(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// shiftSubqueryRefs moves every reference of the subquery expression e to
// the join's fields by d: its operands' field references and its
// relations' outer references to the join's level.
func shiftSubqueryRefs(e *substraitpb.Expression, d int) {
	eachJoinRef(e, func(f *substraitpb.Expression_FieldReference) {
		s := f.GetDirectReference().GetStructField()
		s.Field += int32(d)
	})
}

// eachJoinRef calls visit on every field reference of the subquery
// expression e that names a field of the relation e is evaluated over:
// the root references of its operands, and the outer references of its
// relations whose steps out lead back to that level (one from the
// subquery's own relations, one more inside each nested subquery).
func eachJoinRef(e *substraitpb.Expression, visit func(*substraitpb.Expression_FieldReference)) {
	var walk func(m protoreflect.Message, depth uint32)
	walk = func(m protoreflect.Message, depth uint32) {
		if m.Descriptor().FullName() == exprName {
			if f := m.Interface().(*substraitpb.Expression).GetSelection(); f != nil {
				o := f.GetOuterReference()
				if (depth == 0 && o == nil && f.GetDirectReference().GetStructField() != nil) || (o != nil && o.GetStepsOut() == depth) {
					visit(f)
				}
			}
		}
		inSubquery := strings.HasPrefix(string(m.Descriptor().FullName()), "substrait.Expression.Subquery")
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
				return true
			}
			next := depth
			if inSubquery && fd.Message().FullName() == relMessageName {
				next++ // the subquery's relations are one level in
			}
			if fd.IsList() {
				l := v.List()
				for i := range l.Len() {
					walk(l.Get(i).Message(), next)
				}
				return true
			}
			walk(v.Message(), next)
			return true
		})
	}
	walk(e.ProtoReflect(), 0)
}
