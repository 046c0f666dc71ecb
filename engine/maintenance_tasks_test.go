package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
)

// TestMaintenanceTasksWorkers: CREATE INDEX, CLUSTER, VACUUM FULL and
// REINDEX run as plan / task / commit on the engine's workers. With 1, 2
// and 4 workers the table ends with the same fragments holding the same
// row ids, and takes by _rowid and lookups by k through the indexes
// answer as a database planning without indexes does (the oracle).
func TestMaintenanceTasksWorkers(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	script := `CREATE TABLE t (k BIGINT NOT NULL, s TEXT);
		INSERT INTO t SELECT (g * 7919) % 500, 'a' || g FROM generate_series(1, 700) AS g(g);
		CREATE INDEX rid ON t (_rowid);
		CREATE INDEX kx ON t (k);
		INSERT INTO t SELECT g % 500, 'b' || g FROM generate_series(1, 260) AS g(g);
		DELETE FROM t WHERE k % 9 = 0;
		CLUSTER t USING kx;
		UPDATE t SET s = 'u' WHERE k % 11 = 0;
		VACUUM FULL t;
		REINDEX INDEX rid;
		REINDEX INDEX kx`
	var ids []string
	for i := range 400 {
		ids = append(ids, fmt.Sprint((i*131)%1000))
	}
	queries := []string{
		"SELECT _rowid, k, s FROM t WHERE _rowid IN (" + strings.Join(ids, ",") + ") ORDER BY _rowid",
		"SELECT _rowid, k, s FROM t WHERE k IN (1, 2, 3, 97, 250, 498) ORDER BY _rowid",
		"SELECT _rowid, k, s FROM t ORDER BY _rowid",
	}
	open := func(workers int, noIndex bool) (*engine.DB, [][][]any, [][]uint64) {
		db, err := engine.Open(t.TempDir(), engine.Options{Mem: mem, Workers: workers, DisableIndexes: noIndex,
			Table: table.Options{MaxRowsPerFragment: 90, BatchRows: 16}})
		require.NoError(t, err)
		run(t, db, script, nil)
		var answers [][][]any
		for _, q := range queries {
			answers = append(answers, run(t, db, q, nil))
		}
		tb, err := db.Table(ctx, "t")
		require.NoError(t, err)
		var layout [][]uint64
		for _, f := range tb.Fragments() {
			layout = append(layout, f.RowIDs.AppendTo(nil))
		}
		return db, answers, layout
	}
	_, oracle, _ := open(1, true)
	require.NotEmpty(t, oracle[0])
	var first [][]uint64
	for _, w := range []int{1, 2, 4} {
		db, got, layout := open(w, false)
		require.Equal(t, oracle, got, "workers=%d", w)
		if first == nil {
			first = layout
		}
		require.Equal(t, first, layout, "workers=%d", w)
		plan := run(t, db, "EXPLAIN "+queries[0], nil)
		require.Contains(t, fmt.Sprint(plan), "btree rid(_rowid)", "the take goes through the _rowid index")
	}
}
