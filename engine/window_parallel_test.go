package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParallelWindows: at threads 4 a window with PARTITION BY runs over a
// hash repartition on its partition columns, each stream sorted and
// evaluated on its own (EXPLAIN ANALYZE shows the partitioned operators),
// and every answer is threads = 1's, row for row: a window's frames, a
// second window sharing its sort, one with another partitioning above
// it, and one without PARTITION BY (one partition: merged, serial).
func TestParallelWindows(t *testing.T) {
	db, _ := parallelDB(t, 4)
	serial, _ := parallelDB(t, 1)
	for _, c := range []struct {
		q    string
		plan []string
	}{
		{"SELECT k, sum(v) OVER (PARTITION BY g ORDER BY k ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING), rank() OVER (PARTITION BY g ORDER BY v), lag(v, 2) OVER (PARTITION BY g ORDER BY k) FROM t ORDER BY k",
			[]string{"RepartitionExec: partitioning=Hash([g@1], 4)", "partitions=4, metrics=[output_rows=8000,"}},
		{"SELECT k, count(v) OVER (PARTITION BY g), max(v) OVER (PARTITION BY g ORDER BY k), min(k) OVER (PARTITION BY v % 7 ORDER BY k RANGE BETWEEN 100 PRECEDING AND CURRENT ROW) FROM t ORDER BY k",
			[]string{"RepartitionExec: partitioning=Hash([g@1], 4)"}},
		{"SELECT k, row_number() OVER (ORDER BY v, k), sum(v) OVER (PARTITION BY g ORDER BY k) FROM t ORDER BY k", nil},
	} {
		t.Run(c.q, func(t *testing.T) {
			got := fmtRows(run(t, db, c.q, nil))
			require.Equal(t, fmtRows(run(t, serial, c.q, nil)), got, "threads 4 vs 1")
			require.Len(t, got, 8000)
			res, err := db.Exec(context.Background(), "EXPLAIN ANALYZE "+c.q, nil)
			require.NoError(t, err)
			plan := res.Plan
			res.Release()
			for _, p := range c.plan {
				require.Contains(t, plan, p)
			}
		})
	}
}
