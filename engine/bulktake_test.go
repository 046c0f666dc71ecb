package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
)

// TestBulkTakeAfterParallelVacuumFull: VACUUM FULL with 3 workers keeps
// every row under its id, and DB.BulkTake answers each id as the plain
// SQL take (`WHERE _rowid IN (...)`) does, through a _rowid index made
// stale by an update, deletes and the compaction.
func TestBulkTakeAfterParallelVacuumFull(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	db, err := engine.Open(t.TempDir(), engine.Options{Mem: mem, Workers: 3, Table: table.Options{MaxRowsPerFragment: 40, BatchRows: 8}})
	require.NoError(t, err)
	run(t, db, `CREATE TABLE t (k BIGINT NOT NULL, s TEXT);
		INSERT INTO t SELECT g, 'a' FROM generate_series(1, 300) AS g(g);
		CREATE INDEX rid ON t (_rowid);
		INSERT INTO t SELECT g, 'b' FROM generate_series(301, 400) AS g(g);
		UPDATE t SET s = 'u' WHERE k % 7 = 0;
		DELETE FROM t WHERE k % 5 = 0`, nil)
	want := run(t, db, "SELECT _rowid, k, s FROM t ORDER BY _rowid", nil)
	got := run(t, db, "VACUUM FULL t", nil)
	require.Less(t, got[0][2], got[0][1])
	require.Equal(t, want, run(t, db, "SELECT _rowid, k, s FROM t ORDER BY _rowid", nil))

	var ids []uint64
	for i := range 900 {
		ids = append(ids, uint64((i*37)%460))
	}
	strs := make([]string, len(ids))
	for i, id := range ids {
		strs[i] = fmt.Sprint(id)
	}
	plain := map[uint64][]any{}
	for _, r := range run(t, db, "SELECT _rowid, k, s FROM t WHERE _rowid IN ("+strings.Join(strs, ",")+")", nil) {
		plain[r[0].(uint64)] = r[1:]
	}
	seen := 0
	missing, err := db.BulkTake(ctx, "t", ids, []string{"k", "s"}, func(b arrow.RecordBatch) error {
		k, s, ord := b.Column(0).(*array.Int64), b.Column(1).(*array.String), b.Column(2).(*array.Uint64)
		for i := range int(b.NumRows()) {
			require.Positive(t, ord.Value(i), "ord is 1-based")
			id := ids[ord.Value(i)-1]
			require.Equal(t, plain[id], []any{k.Value(i), s.Value(i)}, "id %d", id)
			seen++
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, len(ids), seen+len(missing))
	for _, m := range missing {
		require.NotContains(t, plain, ids[m-1])
	}
}
