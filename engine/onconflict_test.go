package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
)

// TestOnConflictDoNothing: rows whose key an arbiter index's rows hold
// (covered by the index, appended since, or inserted earlier by the same
// statement) are skipped and not counted; inside a transaction the block's
// own rows count too; a conflict outside the arbiters raises; a target no
// unique index matches is ErrNoArbiter.
func TestOnConflictDoNothing(t *testing.T) {
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	run(t, db, `CREATE TABLE p (id BIGINT PRIMARY KEY, code TEXT, v BIGINT);
		INSERT INTO p VALUES (1, 'a', 1), (2, 'b', 2);
		CREATE UNIQUE INDEX p_code ON p (code DESC);
		INSERT INTO p VALUES (3, 'c', 3)`, nil)
	res, err := db.Exec(t.Context(), `INSERT INTO p VALUES (1, 'x', 0), (3, 'y', 0), (4, 'd', 4), (4, 'e', 0), (5, 'a', 0), (6, NULL, 6), (7, NULL, 7) ON CONFLICT DO NOTHING`, nil)
	require.NoError(t, err)
	require.EqualValues(t, 3, res.RowsAffected)
	res.Release()
	require.ErrorIs(t, execErr(db, `INSERT INTO p VALUES (8, 'a', 0) ON CONFLICT (id) DO NOTHING`), engine.ErrUniqueViolation)
	require.ErrorIs(t, execErr(db, `INSERT INTO p VALUES (8, 'a', 0) ON CONFLICT (v) DO NOTHING`), engine.ErrNoArbiter)
	require.ErrorIs(t, execErr(db, `INSERT INTO p VALUES (8, 'a', 0) ON CONFLICT ON CONSTRAINT nope DO NOTHING`), engine.ErrNoArbiter)
	run(t, db, `BEGIN; INSERT INTO p VALUES (9, 'i', 9) ON CONFLICT DO NOTHING; INSERT INTO p VALUES (9, 'j', 0), (10, 'i', 0), (11, 'k', 11) ON CONFLICT DO NOTHING; COMMIT`, nil)
	require.Equal(t, [][]any{{int64(1), "a"}, {int64(2), "b"}, {int64(3), "c"}, {int64(4), "d"}, {int64(6), nil}, {int64(7), nil}, {int64(9), "i"}, {int64(11), "k"}},
		run(t, db, `SELECT id, code FROM p ORDER BY id`, nil))
}
