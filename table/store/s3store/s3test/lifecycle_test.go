package s3test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/table"
)

// lifecycle is a table's whole life in statements: create, append, index,
// update, delete, compact, recluster, optimize (reindex), vacuum. Small
// fragments and batches give every step several files to work on.
var lifecycle = []string{
	`CREATE TABLE t (k BIGINT NOT NULL, s TEXT); INSERT INTO t SELECT g, 'a' FROM generate_series(0, 4999) AS g(g)`,
	`INSERT INTO t SELECT g, 'b' FROM generate_series(5000, 7999) AS g(g)`,
	`CREATE INDEX rid ON t USING btree (_rowid); CREATE INDEX kx ON t USING btree (k)`,
	`UPDATE t SET s = 'u' WHERE k % 10 = 3`,
	`DELETE FROM t WHERE k % 7 = 0`,
	`INSERT INTO t SELECT g, 'c' FROM generate_series(8000, 8999) AS g(g)`,
	`VACUUM FULL t`,
	`CLUSTER t USING kx`,
	`REINDEX TABLE t`,
	`DELETE FROM t WHERE k % 11 = 0`,
	`VACUUM t`,
}

var lifecycleOpts = table.Options{MaxRowsPerFragment: 2048, BatchRows: 256}

// TestLifecycleMatchesLocal runs the lifecycle on S3 and on local disk,
// step by step, and after each step compares what the two databases
// answer: every row with its row id and address, the seed take of a set of
// ids (hits, deleted rows, misses, duplicates) with its plan, and the
// versions. A fresh Open of the S3 database (a new process's view) must
// answer the same as the one that wrote.
func TestLifecycleMatchesLocal(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := target(t)
	loc := f.uri("db")
	opt := engine.Options{Mem: mem, Create: true, Table: lifecycleOpts}
	local, err := engine.Open(filepath.Join(t.TempDir(), "db"), opt)
	require.NoError(t, err)
	remote, err := engine.Open(loc, opt)
	require.NoError(t, err)

	ids := []int64{0, 3, 7, 13, 14, 77, 5003, 7999, 8000, 8500, 8999, 9000, 1 << 40, 3}
	queries := []struct {
		sql    string
		params map[string]any
	}{
		{"SELECT _rowid, _rowaddr, k, s FROM t ORDER BY _rowid", nil},
		{"SELECT count(*), count(s) FROM t WHERE s = 'u'", nil},
		{seedTake, map[string]any{"ids": ids}},
		{"EXPLAIN " + seedTake, map[string]any{"ids": ids}},
		{"SELECT k, s FROM t WHERE k BETWEEN 4990 AND 5010 ORDER BY k", nil},
	}
	answer := func(db *engine.DB, sql string, params map[string]any) string {
		res, err := db.Exec(context.Background(), sql, params)
		require.NoError(t, err, sql)
		defer res.Release()
		if strings.HasPrefix(sql, "EXPLAIN") {
			return res.Plan
		}
		return render(res)
	}
	for step, stmt := range lifecycle {
		for _, db := range []*engine.DB{local, remote} {
			res, err := db.Exec(context.Background(), stmt, nil)
			require.NoError(t, err, "step %d: %s", step, stmt)
			res.Release()
		}
		fresh, err := engine.Open(loc, engine.Options{Mem: mem, Table: lifecycleOpts})
		require.NoError(t, err)
		for _, q := range queries {
			want := answer(local, q.sql, q.params)
			require.Equal(t, want, answer(remote, q.sql, q.params), "step %d (%s): %s", step, stmt, q.sql)
			require.Equal(t, want, answer(fresh, q.sql, q.params), "step %d (%s), a fresh open: %s", step, stmt, q.sql)
		}
		lt, err := local.Table(context.Background(), "t")
		require.NoError(t, err)
		rt, err := fresh.Table(context.Background(), "t")
		require.NoError(t, err)
		require.Equal(t, lt.Version(), rt.Version(), "step %d", step)
		require.Equal(t, lt.LiveRows(), rt.LiveRows(), "step %d", step)
	}
	res, err := remote.Exec(context.Background(), "EXPLAIN ANALYZE "+seedTake, map[string]any{"ids": ids})
	require.NoError(t, err)
	require.Contains(t, res.Plan, "TakeByKeyExec", "the take ran on the index")
	t.Logf("after the lifecycle on S3:\n%s", res.Plan)
	res.Release()
}

// render prints a result's rows, one a line, columns by ValueStr.
func render(res *engine.Result) string {
	var b strings.Builder
	for _, rb := range res.Batches {
		for i := range int(rb.NumRows()) {
			for c := range int(rb.NumCols()) {
				if c > 0 {
					b.WriteByte('|')
				}
				col := rb.Column(c)
				if col.IsNull(i) {
					b.WriteString("NULL")
				} else {
					b.WriteString(col.ValueStr(i))
				}
			}
			b.WriteByte('\n')
		}
	}
	return fmt.Sprintf("%d rows\n%s", res.NumRows(), b.String())
}
