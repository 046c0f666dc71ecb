package optimize

import (
	"sort"
	"strings"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// A correlated scalar subquery over an ungrouped aggregate whose
// correlation is not only inner = outer equalities (u.x < t.a, <>, LIKE,
// an OR of correlations) is unnested as "Unnesting Arbitrary Queries"
// (Neumann and Kemper, 2015) eliminates a dependent join, the way
// DuckDB's FlattenDependentJoins does: the subquery is evaluated once
// per distinct value of the outer columns the correlation reads, not
// once per outer row (PostgreSQL's SubPlan):
//
//	D   = the distinct values of those outer columns (cur grouped by them)
//	A   = (D ⋈ base on the correlation, D's columns standing for the
//	       outer ones) grouped by D's columns, with the aggregate's measures
//	cur LEFT JOIN A on each outer column = its D column
//
// An outer row whose values have no group in A saw no subquery row: its
// value is the aggregate's over no rows (NULL, or count's 0), as for the
// equality form (scalarAggregate). The final join compares each column
// with = (a hash key) where the correlation rejects a NULL in it (some
// conjunct compares the column itself: NULL makes the conjunct NULL, the
// subquery empty, and the row finds no group, rightly), else with IS NOT
// DISTINCT FROM, so a NULL outer value meets its own group.

// equalitiesOnly reports whether every correlation conjunct is an
// equality between an inner and an outer side (scalarAggregate's form).
func (u *unnester) equalitiesOnly(conds []*substraitpb.Expression, w int) bool {
	for _, c := range conds {
		if _, _, ok := u.innerOuterEquality(c, w); !ok {
			return false
		}
	}
	return true
}

// outerFields are the outer query's fields (below w) that es read, in
// order.
func outerFields(es []*substraitpb.Expression, w int) []int {
	seen := map[int]bool{}
	for _, e := range es {
		_, _ = remapRefs(e, func(root bool, steps uint32, field int) (*substraitpb.Expression, error) {
			if root && field < w {
				seen[field] = true
			}
			return fieldExpr(field), nil
		})
	}
	out := make([]int, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Ints(out)
	return out
}

// comparisons are the calls whose value is NULL when an operand is.
var comparisons = map[string]bool{"equal": true, "not_equal": true, "lt": true, "gt": true, "lte": true, "gte": true, "like": true}

// nullRejected reports whether some conjunct of conds compares outer
// field o itself, so that o NULL makes the subquery empty.
func (u *unnester) nullRejected(conds []*substraitpb.Expression, o int) bool {
	for _, c := range conds {
		if !comparisons[u.funcName(c)] {
			continue
		}
		for _, a := range callArgs(c) {
			if proto.Equal(a, fieldExpr(o)) {
				return true
			}
		}
	}
	return false
}

// dependentAggregate joins cur (width w) with the correlated scalar
// subquery over the ungrouped aggregate aggRel (under the projects, top
// first; f its flattened input) whose correlation is not equalities only.
func (u *unnester) dependentAggregate(cur *substraitpb.Rel, w int, aggRel *substraitpb.Rel, projects []*substraitpb.ProjectRel, f *flat, path string) (*substraitpb.Rel, *substraitpb.Expression, int, error) {
	apath := path + strings.Repeat(".project.input", len(projects)) + ".aggregate"
	a := aggRel.GetAggregate()
	direct := func() *substraitpb.RelCommon {
		return &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Direct_{Direct: &substraitpb.RelCommon_Direct{}}}
	}
	fields := outerFields(f.conds, w)
	k := len(fields)
	pos := make(map[int]int, k)
	dkeys, refs := make([]*substraitpb.Expression, k), make([]uint32, k)
	for i, o := range fields {
		pos[o], dkeys[i], refs[i] = i, fieldExpr(o), uint32(i)
	}
	// D: the outer rows' distinct values (a copy of cur: the plan is a
	// tree, and cur stays the join's left input).
	d := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Aggregate{Aggregate: &substraitpb.AggregateRel{
		Common: direct(), Input: u.copyRel(cur), GroupingExpressions: dkeys,
		Groupings: []*substraitpb.AggregateRel_Grouping{{ExpressionReferences: refs}},
	}}}, k)
	// D ⋈ base on the correlation, D's columns for the outer ones.
	conds := make([]*substraitpb.Expression, len(f.conds))
	for i, c := range f.conds {
		x, err := remapRefs(c, func(root bool, steps uint32, field int) (*substraitpb.Expression, error) {
			if field < w {
				return fieldExpr(pos[field]), nil
			}
			return fieldExpr(k + field - w), nil
		})
		if err != nil {
			return nil, nil, 0, place(err, apath+".input")
		}
		conds[i] = x
	}
	dj := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
		Common: direct(), Left: d, Right: f.base, Expression: u.and(conds), Type: substraitpb.JoinRel_JOIN_TYPE_INNER}}},
		k+u.width(f.base))
	measures, cols, err := u.scalarMeasures(a, f, w, k, k, apath)
	if err != nil {
		return nil, nil, 0, err
	}
	gkeys := make([]*substraitpb.Expression, k)
	for i := range gkeys {
		gkeys[i] = fieldExpr(i)
	}
	agg := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Aggregate{Aggregate: &substraitpb.AggregateRel{
		Common: direct(), Input: dj, GroupingExpressions: gkeys,
		Groupings: []*substraitpb.AggregateRel_Grouping{{ExpressionReferences: append([]uint32(nil), refs...)}},
		Measures:  measures,
	}}}, k+len(measures))
	on := make([]*substraitpb.Expression, k)
	for i, o := range fields {
		fn := "is_not_distinct_from"
		if u.nullRejected(f.conds, o) {
			fn = "equal"
		}
		on[i] = u.call(fn, nullableBoolean, fieldExpr(o), fieldExpr(w+i))
	}
	return u.scalarJoin(cur, w, agg, on, cols, a, projects, path, apath)
}

// copyRel is a deep copy of r (the check after Decorrelate computes
// its relations' widths).
func (u *unnester) copyRel(r *substraitpb.Rel) *substraitpb.Rel {
	return proto.Clone(r).(*substraitpb.Rel)
}
