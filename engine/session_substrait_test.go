package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
)

// TestSessionQuerySubstrait: a Substrait plan run in a session reads its
// transaction: its own writes and its snapshot, not a commit made
// meanwhile; the same plan on the DB reads the published table. A plan
// that fails aborts the block, and a plan in a failed block is refused.
func TestSessionQuerySubstrait(t *testing.T) {
	ctx := context.Background()
	db, _ := txnDB(t)
	plan, _, err := db.SubstraitOf(ctx, `SELECT k FROM t`)
	require.NoError(t, err)
	count := func(rows *engine.Rows, err error) int {
		t.Helper()
		require.NoError(t, err)
		defer rows.Close()
		n := 0
		for rows.Next() {
			n += int(rows.RecordBatch().NumRows())
		}
		require.NoError(t, rows.Err())
		return n
	}
	s := db.NewSession()
	defer s.Close()
	sessRun(t, s, `BEGIN`)
	sessRun(t, s, `INSERT INTO t VALUES (4, 40)`)
	require.Equal(t, 4, count(s.QuerySubstrait(ctx, plan, nil)))
	run(t, db, `INSERT INTO t VALUES (5, 50), (6, 60)`, nil)
	require.Equal(t, 4, count(s.QuerySubstrait(ctx, plan, nil)))
	require.Equal(t, 5, count(db.QuerySubstrait(ctx, plan, nil)))

	_, err = s.QuerySubstrait(ctx, []byte("not a plan"), nil)
	require.Error(t, err)
	require.Equal(t, engine.TxInFailed, s.Status())
	_, err = s.QuerySubstrait(ctx, plan, nil)
	require.ErrorIs(t, err, engine.ErrTxnAborted)
	sessRun(t, s, `ROLLBACK`)
	require.Equal(t, 5, count(db.QuerySubstrait(ctx, plan, nil)))
}
