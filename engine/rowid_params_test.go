package engine_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
)

// TestRowIDParams: row id values from outside, through the seed query,
// with the index and without (hash join), as PostgreSQL has them with ids
// a bigint[]: a negative id is a bigint no row has, so its LEFT JOIN row
// has NULLs and keeps its value; a uint64 above MaxInt64 is no bigint at
// all ("value ... is out of range for type bigint"), an out-of-range
// parameter error, never a wrapped negative id that silently misses; every
// Go integer list kind gives the same answer.
func TestRowIDParams(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	const q = `SELECT v.ord, v.rowid, t.k FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
		LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`
	for _, disable := range []bool{false, true} {
		db := engine.OpenMemory(engine.Options{Mem: mem, DisableIndexes: disable})
		_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL);
			INSERT INTO t SELECT g * 10 FROM generate_series(0, 9) AS g(g);
			CREATE INDEX rid ON t USING btree (_rowid)`, nil)
		require.NoError(t, err)

		got := run(t, db, q, map[string]any{"ids": []int64{-1, 2, math.MinInt64, 2, 10}})
		require.Equal(t, [][]any{{int64(1), int64(-1), nil}, {int64(2), int64(2), int64(20)},
			{int64(3), int64(math.MinInt64), nil}, {int64(4), int64(2), int64(20)}, {int64(5), int64(10), nil}}, got, "indexes disabled: %v", disable)

		for _, ids := range []any{[]int64{7, 3}, []uint64{7, 3}, []int{7, 3}, []int32{7, 3}, []uint32{7, 3}} {
			got := run(t, db, q, map[string]any{"ids": ids})
			require.Equal(t, [][]any{{int64(1), int64(7), int64(70)}, {int64(2), int64(3), int64(30)}}, got, "%T", ids)
		}

		for _, ids := range []any{[]uint64{3, 1 << 63, 2}, []uint64{math.MaxUint64}, uint64(1 << 63)} {
			res, err := db.Exec(ctx, q, map[string]any{"ids": ids})
			res.Release()
			require.Error(t, err, "%v", ids)
			require.True(t, errors.Is(err, engine.ErrParam), "%v", err)
			require.True(t, errors.Is(err, plan.ErrOutOfRange), "%v", err)
			require.True(t, errors.Is(err, errkind.OutOfRange), "%v", err)
			require.Contains(t, err.Error(), ":ids")
			require.Contains(t, err.Error(), "out of range for type bigint")
		}
	}
}
