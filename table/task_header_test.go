package table_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
)

// TestResultsByTask: results are sorted to their tasks, the first of two
// for one task wins, nil results are skipped, a result of another plan or
// of a task the plan does not have is ErrTask, and AllResults names the
// first task left without one.
func TestResultsByTask(t *testing.T) {
	p := &table.PlanHeader{Format: table.TaskFormat, ID: "p", Version: 4}
	k0, k1, k2 := p.Task(0), p.Task(1), p.Task(2)
	require.True(t, p.Owns(&k1, 1))
	require.False(t, p.Owns(&k1, 2))
	res := func(k table.TaskHeader, file string) *table.CompactResult {
		return &table.CompactResult{ResultHeader: k.Result(), Files: []table.ResultFile{{DataFile: file}}}
	}
	ok := func(*table.CompactResult) error { return nil }
	r0, r2, r2b := res(k0, "a"), res(k2, "b"), res(k2, "c")
	byTask, err := table.ResultsByTask(p, 3, []*table.CompactResult{nil, r2, r0, r2b}, ok)
	require.NoError(t, err)
	require.Equal(t, []*table.CompactResult{r0, nil, r2}, byTask)
	require.ErrorIs(t, table.AllResults(p, byTask), table.ErrTask)
	byTask[1] = res(k1, "d")
	require.NoError(t, table.AllResults(p, byTask))

	foreign := res(k0, "e")
	foreign.Plan = "q"
	past := res(k2, "f")
	past.Seq = 3
	negative := res(k0, "g")
	negative.Seq = -1
	for _, r := range []*table.CompactResult{foreign, past, negative} {
		_, err := table.ResultsByTask(p, 3, []*table.CompactResult{r0, r}, ok)
		require.ErrorIs(t, err, table.ErrTask, "%+v", r.ResultHeader)
	}
	refuse := errors.New("refused")
	_, err = table.ResultsByTask(p, 3, []*table.CompactResult{r0}, func(*table.CompactResult) error { return refuse })
	require.ErrorIs(t, err, refuse)

	newer := &table.PlanHeader{Format: table.TaskFormat, ID: "p", Version: 1 << 40}
	tb, _, _ := rwFixture(t, 3, 5, exectest.Mem(t))
	require.ErrorIs(t, newer.CheckSnapshot(tb), table.ErrTask)
	require.NoError(t, (&table.PlanHeader{Version: tb.Version()}).CheckSnapshot(tb))
}
