package plan_test

import (
	"context"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
)

func TestEvalConst(t *testing.T) {
	mem := exectest.Mem(t)
	cast := func(v int64) expr.Expression {
		return &expr.Cast{Type: &types.Int32Type{Nullability: types.NullabilityRequired}, Input: expr.NewPrimitiveLiteral(v, false), FailureBehavior: types.BehaviorThrowException}
	}
	v, ok, err := plan.EvalConst(context.Background(), mem, cast(5))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, int32(5), v.(*array.Int32).Value(0))
	v.Release()

	_, ok, err = plan.EvalConst(context.Background(), mem, cast(1<<40))
	assert.True(t, ok)
	assert.ErrorIs(t, err, physexpr.ErrOutOfRange, "the cast's own error, as at run time")

	// A column or a parameter is not a constant: left alone.
	_, ok, err = plan.EvalConst(context.Background(), mem, &expr.DynamicParameter{OutputType: &types.Int64Type{}, ParameterReference: 1})
	assert.False(t, ok)
	assert.NoError(t, err)
}
