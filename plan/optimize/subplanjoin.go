package optimize

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// A join Decorrelate makes of a sublink that PostgreSQL 15 does not pull
// up into a join keeps it as a SubPlan in the filter over its outer
// input: the outer rows come out in their input's order, with its
// pathkeys, where a sort above can be elided (plan/ordering.go). One it
// pulls up (pull_up_sublinks) is a join of its own choosing, a hash join
// with no pathkeys in the plans the difftest compares, so a sort stays.
//
// pull_up_sublinks_qual_recurse converts only a bare ANY sublink
// (convert_ANY_sublink_to_join) and [NOT] EXISTS
// (convert_EXISTS_sublink_to_join):
//   - ANY (IN, op ANY) is pulled up when the subquery does not reference
//     the outer query (contain_vars_of_level(subselect, 1)) and its test
//     expression does (pull_varnos(testexpr) not empty);
//   - EXISTS and NOT EXISTS when the subquery's WHERE references the
//     outer query (an uncorrelated one is an InitPlan, a one-time gate);
//   - NOT IN and NOT op ANY, and ALL in either form, never.

// subplanJoinMark is the optimization hint (AdvancedExtension, which a
// consumer may ignore) a join Decorrelate made for a SubPlan carries.
const subplanJoinMark = "stablerow.subplan_filter"

// keptAsSubPlan: PostgreSQL 15 keeps the sublink of a set conjunct as a
// SubPlan (above). corr: the subquery references the outer query; xs: the
// test expression's operands (none for EXISTS).
func keptAsSubPlan(exists, negated, all, corr bool, xs []*substraitpb.Expression) bool {
	switch {
	case exists:
		return !corr
	case all || negated:
		return true
	}
	return corr || !readsInput(xs)
}

// readsInput: some of es reads a column of the query's own input (a
// field reference that is not an outer reference).
func readsInput(es []*substraitpb.Expression) bool {
	found := false
	for _, e := range es {
		walkExprs(e.ProtoReflect(), func(x *substraitpb.Expression) bool {
			if f := x.GetSelection(); f != nil && f.GetOuterReference() == nil {
				found = true
			}
			return !found
		})
	}
	return found
}

// markSubPlanJoin marks j as standing for a SubPlan filter.
func markSubPlanJoin(j *substraitpb.JoinRel) {
	v, err := anypb.New(wrapperspb.String(subplanJoinMark))
	if err != nil {
		return // a hint: without it the join is only not ordered
	}
	if j.AdvancedExtension == nil {
		j.AdvancedExtension = &extensions.AdvancedExtension{}
	}
	j.AdvancedExtension.Optimization = append(j.AdvancedExtension.Optimization, v)
}

// IsSubPlanJoin: ext (a join's AdvancedExtension) marks a join
// Decorrelate made of a sublink PostgreSQL keeps as a SubPlan filter.
func IsSubPlanJoin(ext *extensions.AdvancedExtension) bool {
	for _, o := range ext.GetOptimization() {
		var s wrapperspb.StringValue
		if o.MessageIs(&s) && o.UnmarshalTo(&s) == nil && s.GetValue() == subplanJoinMark {
			return true
		}
	}
	return false
}

// correlated: the subquery s, as written (its own subqueries not yet
// rewritten), references the query around it: an outer reference whose
// steps_out reaches past the subqueries nested around it in s
// (contain_vars_of_level(subselect, 1)).
func correlated(s *substraitpb.Rel) bool {
	found := false
	var walk func(m protoreflect.Message, depth uint32)
	walk = func(m protoreflect.Message, depth uint32) {
		switch x := m.Interface().(type) {
		case *substraitpb.Expression_FieldReference:
			if o := x.GetOuterReference(); o != nil && o.GetStepsOut() > depth {
				found = true
				return
			}
		case *substraitpb.Expression_Subquery:
			depth++
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
				return true
			}
			if fd.IsList() {
				for j := range v.List().Len() {
					walk(v.List().Get(j).Message(), depth)
				}
			} else {
				walk(v.Message(), depth)
			}
			return !found
		})
	}
	walk(s.ProtoReflect(), 0)
	return found
}
