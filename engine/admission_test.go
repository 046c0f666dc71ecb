package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// TestAdmission: under WithAdmission each planned statement is admitted
// once, as heavy when its plan sorts, aggregates or joins and light when
// it streams; its operators reserve from the pool the admission returned
// (a child of a shared budget), which is closed when the rows are, so the
// budget is whole again; a refused admission is the statement's error; a
// sort whose budget is small spills and answers as without one.
func TestAdmission(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 1024, SpillDir: t.TempDir(), Threads: 2})
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL);
		INSERT INTO t SELECT (g * 7919) % 50000 FROM generate_series(1, 50000) AS g(g)`, nil)
	require.NoError(t, err)
	const order = "SELECT k FROM t ORDER BY k"
	want := run(t, db, order, nil)

	budget := memlimit.NewBudget(1 << 20)
	var calls []bool
	actx := engine.WithAdmission(ctx, func(_ context.Context, heavy bool, limit int64) (*memlimit.Pool, error) {
		calls = append(calls, heavy)
		if err := budget.TryReserve("admission", 64<<10); err != nil {
			return nil, err
		}
		return budget.Child(limit, 64<<10), nil
	})
	res, err := db.Exec(actx, order, nil)
	require.NoError(t, err)
	got, err := exectest.Rows(res.Batches...)
	res.Release()
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Positive(t, budget.PeakReserved())
	require.LessOrEqual(t, budget.PeakReserved(), int64(1<<20))
	require.Zero(t, budget.Reserved(), "the statement's pool went back to the budget")

	res, err = db.Exec(actx, "SELECT k + 1 FROM t WHERE k < 10", nil)
	require.NoError(t, err)
	res.Release()
	require.Equal(t, []bool{true, false}, calls)
	require.Zero(t, budget.Reserved())

	refuse := engine.WithAdmission(ctx, func(context.Context, bool, int64) (*memlimit.Pool, error) {
		return nil, memlimit.ErrResourceExhausted
	})
	_, err = db.Exec(refuse, "SELECT 1", nil)
	require.ErrorIs(t, err, memlimit.ErrResourceExhausted)
}

// TestExactParams: under WithExactParams a positional value past the
// statement's parameters is ErrExtraParam (InvalidArgument); without it,
// as before, it is ignored.
func TestExactParams(t *testing.T) {
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	params := engine.PositionalParams([]any{int64(1), int64(2)})
	res, err := db.Exec(ctx, "SELECT $1::bigint", params)
	require.NoError(t, err)
	res.Release()
	_, err = db.Exec(engine.WithExactParams(ctx), "SELECT $1::bigint", params)
	require.ErrorIs(t, err, engine.ErrExtraParam)
	require.True(t, errors.Is(err, errkind.InvalidArgument))
	res, err = db.Exec(engine.WithExactParams(ctx), "SELECT $1::bigint + $2", params)
	require.NoError(t, err)
	res.Release()
}
