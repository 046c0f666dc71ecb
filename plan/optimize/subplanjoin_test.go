package optimize

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// TestKeptAsSubPlan: PostgreSQL 15's pull_up_sublinks rule, per sublink
// kind: a bare ANY is pulled up when uncorrelated with a test expression
// over the input, [NOT] EXISTS when correlated, NOT IN and ALL never. A
// marked join is recognized by IsSubPlanJoin, an unmarked one is not.
func TestKeptAsSubPlan(t *testing.T) {
	col := &substraitpb.Expression{RexType: &substraitpb.Expression_Selection{Selection: &substraitpb.Expression_FieldReference{
		ReferenceType: &substraitpb.Expression_FieldReference_DirectReference{DirectReference: &substraitpb.Expression_ReferenceSegment{
			ReferenceType: &substraitpb.Expression_ReferenceSegment_StructField_{StructField: &substraitpb.Expression_ReferenceSegment_StructField{Field: 0}}}},
		RootType: &substraitpb.Expression_FieldReference_RootReference_{RootReference: &substraitpb.Expression_FieldReference_RootReference{}}}}}
	lit := &substraitpb.Expression{RexType: &substraitpb.Expression_Literal_{Literal: &substraitpb.Expression_Literal{
		LiteralType: &substraitpb.Expression_Literal_I64{I64: 1}}}}
	for name, c := range map[string]struct {
		exists, negated, all, corr bool
		xs                         []*substraitpb.Expression
		kept                       bool
	}{
		"uncorrelated IN over a column": {xs: []*substraitpb.Expression{col}, kept: false},
		"uncorrelated IN of a constant": {xs: []*substraitpb.Expression{lit}, kept: true},
		"correlated IN":                 {corr: true, xs: []*substraitpb.Expression{col}, kept: true},
		"NOT IN":                        {negated: true, xs: []*substraitpb.Expression{col}, kept: true},
		"ALL":                           {all: true, xs: []*substraitpb.Expression{col}, kept: true},
		"correlated EXISTS":             {exists: true, corr: true, kept: false},
		"correlated NOT EXISTS":         {exists: true, negated: true, corr: true, kept: false},
		"uncorrelated EXISTS":           {exists: true, kept: true},
	} {
		assert.Equal(t, c.kept, keptAsSubPlan(c.exists, c.negated, c.all, c.corr, c.xs), name)
	}
	j := &substraitpb.JoinRel{}
	assert.False(t, IsSubPlanJoin(j.GetAdvancedExtension()))
	markSubPlanJoin(j)
	assert.True(t, IsSubPlanJoin(j.GetAdvancedExtension()))
}

// TestCorrelated: an outer reference counts when it reaches past the
// subqueries nested in the subquery (steps_out 1 at its top, 2 in a
// subquery of it), not when it names a query inside it.
func TestCorrelated(t *testing.T) {
	ref := func(steps uint32) *substraitpb.Expression {
		return &substraitpb.Expression{RexType: &substraitpb.Expression_Selection{Selection: &substraitpb.Expression_FieldReference{
			RootType: &substraitpb.Expression_FieldReference_OuterReference_{OuterReference: &substraitpb.Expression_FieldReference_OuterReference{StepsOut: steps}}}}}
	}
	filter := func(cond *substraitpb.Expression) *substraitpb.Rel {
		return &substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: &substraitpb.FilterRel{Condition: cond}}}
	}
	nested := func(in *substraitpb.Rel) *substraitpb.Expression {
		return &substraitpb.Expression{RexType: &substraitpb.Expression_Subquery_{Subquery: &substraitpb.Expression_Subquery{
			SubqueryType: &substraitpb.Expression_Subquery_SetPredicate_{SetPredicate: &substraitpb.Expression_Subquery_SetPredicate{Tuples: in}}}}}
	}
	assert.True(t, correlated(filter(ref(1))))
	assert.False(t, correlated(filter(nil)))
	assert.False(t, correlated(filter(nested(filter(ref(1))))), "the nested subquery's own correlation")
	assert.True(t, correlated(filter(nested(filter(ref(2))))))
}
