package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
)

// TestPlanTakeSharesTheIndex: DB.PlanTake plans through the engine's own
// access layer, so the _rowid index a SQL take opened is the one it uses
// (one cached resolver, not two), and its tasks name exactly the rows the
// SQL take returns.
func TestPlanTakeSharesTheIndex(t *testing.T) {
	ctx := context.Background()
	db := OpenMemory(Options{Mem: exectest.Mem(t), Table: table.Options{MaxRowsPerFragment: 50}})
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL);
		INSERT INTO t SELECT g FROM generate_series(0, 199) AS g(g);
		CREATE INDEX rid ON t (_rowid);
		DELETE FROM t WHERE k % 10 = 3`, nil)
	require.NoError(t, err)
	ids := []uint64{5, 13, 150, 42, 5, 199, 400}
	rows, err := db.Query(ctx, `SELECT t._rowaddr FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord)
		JOIN t ON t._rowid = v.rowid ORDER BY v.ord`, PositionalParams([]any{[]int64{5, 13, 150, 42, 5, 199, 400}}))
	require.NoError(t, err)
	var want []uint64
	for rows.Next() {
		for i := range int(rows.Batch().NumRows()) {
			want = append(want, rows.Batch().Column(0).(interface{ Value(int) uint64 }).Value(i))
		}
	}
	require.NoError(t, rows.Err())
	rows.Close()
	require.Equal(t, 1, db.acc.Cached(), "the SQL take opened the index")

	tb, err := db.Table(ctx, "t")
	require.NoError(t, err)
	p, err := db.PlanTake(ctx, tb, ids, access.TakeOptions{})
	require.NoError(t, err)
	require.Equal(t, 1, db.acc.Cached(), "PlanTake reused it")
	require.Equal(t, []uint64{1, 6}, p.Missing) // 13 deleted, 400 never existed
	got := make([]uint64, len(ids))
	for _, k := range p.Tasks {
		for j, o := range k.Ords {
			got[o] = uint64(k.Fragment)<<32 | uint64(k.Offsets[j])
		}
	}
	var live []uint64
	for i, a := range got {
		if i != 1 && i != 6 {
			live = append(live, a)
		}
	}
	require.Equal(t, want, live)
}
