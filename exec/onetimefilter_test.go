package exec_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// raisingNode is an input whose execution fails, as a WHERE that divides
// by zero on its first row does: a one-time FALSE filter above it must
// never execute it.
type raisingNode struct {
	*exec.ValuesExec
	executed int
}

var errRaised = errors.New("input executed")

func (r *raisingNode) Execute(context.Context, *exec.TaskContext) (exec.Stream, error) {
	r.executed++
	return nil, errRaised
}

func (r *raisingNode) ExecutePartitions(context.Context, *exec.TaskContext) ([]exec.Stream, error) {
	r.executed++
	return nil, errRaised
}

// A constant FALSE filter gates its input (PostgreSQL's Result with
// One-Time Filter: false): no row, and the input is never executed, also
// partitioned or rebuilt with new children; EXPLAIN ANALYZE shows the
// input "(never executed)", with no metrics.
func TestOneTimeFalseFilterNeverExecutesInput(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	vals, err := exec.NewValuesExec(schema, nil)
	require.NoError(t, err)
	in := &raisingNode{ValuesExec: vals}
	f := exec.NewOneTimeFalseFilterExec(in)
	assert.True(t, exec.NeverExecuted(f))
	assert.True(t, f.Schema().Equal(schema))

	ctx := context.Background()
	s, err := f.Execute(ctx, &exec.TaskContext{})
	require.NoError(t, err)
	got, err := exec.Collect(ctx, s)
	require.NoError(t, err)
	assert.Empty(t, got)
	require.NoError(t, s.Close())

	ss, err := f.ExecutePartitions(ctx, &exec.TaskContext{})
	require.NoError(t, err)
	require.Len(t, ss, 1)
	got, err = exec.Collect(ctx, ss[0])
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Equal(t, 1, f.OutputPartitions())

	re, err := f.WithNewChildren([]exec.Node{in})
	require.NoError(t, err)
	assert.True(t, exec.NeverExecuted(re))
	s, err = re.Execute(ctx, &exec.TaskContext{})
	require.NoError(t, err)
	got, err = exec.Collect(ctx, s)
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Zero(t, in.executed)

	text := exec.Explain(f, true)
	lines := strings.Split(strings.TrimSpace(text), "\n")
	require.Len(t, lines, 2, text)
	assert.Contains(t, lines[0], "FilterExec: One-Time Filter: false, metrics=[")
	assert.Contains(t, lines[1], "ValuesExec")
	assert.True(t, strings.HasSuffix(lines[1], "(never executed)"), text)
	assert.NotContains(t, lines[1], "metrics=", text)

	// An ordinary filter executes its input (and so raises here).
	pf, err := exec.NewFilterExec(in, physexpr.Unary{Op: physexpr.OpIsNull, E: physexpr.Col{Index: 0, Name: "x"}})
	require.NoError(t, err)
	assert.False(t, exec.NeverExecuted(pf))
	_, err = pf.Execute(ctx, &exec.TaskContext{})
	assert.ErrorIs(t, err, errRaised)
	assert.Equal(t, 1, in.executed)
}
