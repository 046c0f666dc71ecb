package exec_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A condition-free semi or anti join is a gate (joingate.go), PostgreSQL's
// One-Time Filter over an uncorrelated [NOT] EXISTS: its right input runs
// first, over an empty left input too, and a closed gate never executes
// its left input. A join with a condition keeps the lazy build: its right
// input never runs over an empty left one.
func TestJoinGate(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	values := func(rows ...int64) *exec.ValuesExec {
		var rs [][]any
		for _, r := range rows {
			rs = append(rs, []any{r})
		}
		var bs []arrow.RecordBatch
		if len(rs) > 0 {
			b, err := exectest.Batch(mem, schema, rs)
			require.NoError(t, err)
			bs = append(bs, b)
		}
		v, err := exec.NewValuesExec(schema, bs)
		require.NoError(t, err)
		for _, b := range bs {
			b.Release() // v holds them
		}
		t.Cleanup(v.Release)
		return v
	}
	raising := func() *raisingNode { return &raisingNode{ValuesExec: values()} }
	run := func(j exec.Node) ([][]any, error) {
		s, err := j.Execute(ctx, &exec.TaskContext{Mem: mem})
		if err != nil {
			return nil, err
		}
		defer s.Close()
		bs, err := exec.Collect(ctx, s)
		if err != nil {
			return nil, err
		}
		defer func() {
			for _, b := range bs {
				b.Release()
			}
		}()
		return exectest.Rows(bs...)
	}
	join := func(l, r exec.Node, typ exec.JoinType, cond physexpr.Expr) exec.Node {
		j, err := exec.NewNestedLoopJoinExec(l, r, typ, cond)
		require.NoError(t, err)
		return j
	}

	t.Run("closed semi gate never reads its left input", func(t *testing.T) {
		left := raising()
		got, err := run(join(left, values(), exec.JoinSemi, nil))
		require.NoError(t, err)
		assert.Empty(t, got)
		assert.Zero(t, left.executed)
	})
	t.Run("closed anti gate never reads its left input", func(t *testing.T) {
		left := raising()
		got, err := run(join(left, values(7), exec.JoinAnti, nil))
		require.NoError(t, err)
		assert.Empty(t, got)
		assert.Zero(t, left.executed)
	})
	t.Run("the right input runs over an empty left input", func(t *testing.T) {
		right := raising()
		_, err := run(join(values(), right, exec.JoinSemi, nil))
		assert.ErrorIs(t, err, errRaised)
		assert.Equal(t, 1, right.executed)
	})
	t.Run("open gates pass every left row", func(t *testing.T) {
		got, err := run(join(values(1, 2, 3), values(9), exec.JoinSemi, nil))
		require.NoError(t, err)
		assert.Equal(t, [][]any{{int64(1)}, {int64(2)}, {int64(3)}}, got)
		got, err = run(join(values(1, 2), values(), exec.JoinAnti, nil))
		require.NoError(t, err)
		assert.Equal(t, [][]any{{int64(1)}, {int64(2)}}, got)
	})
	t.Run("a join with a condition builds lazily", func(t *testing.T) {
		right := raising()
		cond := physexpr.Binary{Op: physexpr.OpEq, L: physexpr.Col{Index: 0, Name: "x"}, R: physexpr.Col{Index: 1, Name: "x"}}
		got, err := run(join(values(), right, exec.JoinSemi, cond))
		require.NoError(t, err)
		assert.Empty(t, got)
		assert.Zero(t, right.executed)
	})
}
