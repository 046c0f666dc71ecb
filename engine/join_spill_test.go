package engine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stretchr/testify/require"
)

// TestHashJoinSpillSQL: TPC-H-shaped joins (Q12's lineitem-orders inner
// join, Q13's customer LEFT JOIN orders, Q4's EXISTS) whose build sides
// are far over SET memory_limit: they failed at the limit before the
// hash join spilled (exec/join_spill.go); now each answer equals the
// unlimited one, EXPLAIN ANALYZE shows the join's spill metrics, and no
// spill file is left.
func TestHashJoinSpillSQL(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	spill := t.TempDir()
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 1024, SpillDir: spill})
	_, err := db.Exec(ctx, `CREATE TABLE orders (o_orderkey BIGINT NOT NULL, o_custkey BIGINT NOT NULL, o_orderpriority TEXT NOT NULL, o_comment TEXT NOT NULL);
		INSERT INTO orders SELECT g, (g::bigint * 7919) % 20000, 'P' || (g % 5), CASE WHEN g % 11 = 0 THEN 'special requests' ELSE 'plain' END
			FROM generate_series(1, 30000) AS g(g);
		CREATE TABLE lineitem (l_orderkey BIGINT NOT NULL, l_quantity BIGINT NOT NULL, l_shipmode TEXT NOT NULL, l_commit BIGINT NOT NULL, l_receipt BIGINT NOT NULL);
		INSERT INTO lineitem SELECT (g::bigint * 104729) % 40000 + 1, g % 50, CASE WHEN g % 3 = 0 THEN 'MAIL' ELSE 'SHIP' END, g % 7, g % 5
			FROM generate_series(1, 90000) AS g(g);
		CREATE TABLE customer (c_custkey BIGINT NOT NULL);
		INSERT INTO customer SELECT g FROM generate_series(0, 29999) AS g(g)`, nil)
	require.NoError(t, err)
	queries := []string{
		`SELECT l_shipmode, o_orderpriority, count(*), sum(l_quantity) FROM lineitem JOIN orders ON l_orderkey = o_orderkey
			GROUP BY l_shipmode, o_orderpriority ORDER BY 1, 2`,
		`SELECT c_count, count(*) AS custdist FROM (SELECT c_custkey, count(o_orderkey) AS c_count FROM customer
			LEFT JOIN orders ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%' GROUP BY c_custkey) AS c_orders
			GROUP BY c_count ORDER BY custdist DESC, c_count DESC`,
		`SELECT o_orderpriority, count(*) FROM orders WHERE EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commit < l_receipt)
			GROUP BY o_orderpriority ORDER BY 1`,
	}
	var free [][][]any
	for _, q := range queries {
		free = append(free, run(t, db, q, nil))
	}
	_, err = db.Exec(ctx, "SET memory_limit = '384kB'", nil)
	require.NoError(t, err)
	for i, q := range queries {
		require.Equal(t, free[i], run(t, db, q, nil), q)
		var text []string
		for _, r := range run(t, db, "EXPLAIN ANALYZE "+q, nil) {
			text = append(text, r[0].(string))
		}
		plan := strings.Join(text, "\n")
		spilled := false
		for _, line := range text {
			spilled = spilled || strings.Contains(line, "HashJoinExec") && strings.Contains(line, "spill_count=")
		}
		require.True(t, spilled, "no hash join spilled: the test checks nothing\n%s", plan)
	}
	ents, err := os.ReadDir(spill)
	require.NoError(t, err)
	require.Empty(t, ents, "spill files left behind")
}
