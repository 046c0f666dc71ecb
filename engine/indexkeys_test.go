package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
)

// TestCompositeIndexLookups: filters on a prefix of a composite index's
// key columns (equalities, IN lists, a range on the next column) are
// answered by an index scan of that index, over rows some of which were
// appended after the build, updated or deleted, and return exactly the
// rows a database without indexes returns, for random key orders.
func TestCompositeIndexLookups(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	r := rand.New(rand.NewPCG(29, 6))
	dbs := []*engine.DB{engine.OpenMemory(engine.Options{Mem: mem}), engine.OpenMemory(engine.Options{Mem: mem, DisableIndexes: true})}
	order := func() string {
		return []string{"", " DESC", " NULLS FIRST", " DESC NULLS LAST"}[r.IntN(4)]
	}
	val := func(col string) string {
		switch col {
		case "a":
			return fmt.Sprint(r.IntN(5))
		case "b":
			return fmt.Sprintf("'%c'", 'p'+r.IntN(4))
		}
		return fmt.Sprint(r.IntN(4) - 1)
	}
	row := func(k int) string {
		v := func(col string) string {
			if r.IntN(6) == 0 {
				return "NULL"
			}
			return val(col)
		}
		return fmt.Sprintf("(%d, %s, %s, %s)", k, v("a"), v("b"), v("c"))
	}
	setup := []string{`CREATE TABLE t (k BIGINT, a INTEGER, b TEXT, c DOUBLE PRECISION)`}
	var rows []string
	for k := range 300 {
		rows = append(rows, row(k))
	}
	setup = append(setup, "INSERT INTO t VALUES "+strings.Join(rows, ", "),
		fmt.Sprintf("CREATE INDEX abc ON t (a%s, b%s, c%s)", order(), order(), order()),
		fmt.Sprintf("CREATE INDEX ca ON t (c%s, a%s)", order(), order()))
	rows = rows[:0]
	for k := 300; k < 360; k++ {
		rows = append(rows, row(k))
	}
	setup = append(setup, "INSERT INTO t VALUES "+strings.Join(rows, ", "),
		"UPDATE t SET b = 'q' WHERE k % 17 = 0", "DELETE FROM t WHERE k % 13 = 0")
	for _, db := range dbs {
		for _, q := range setup {
			run(t, db, q, nil)
		}
	}
	cond := func(col string) string {
		switch r.IntN(4) {
		case 0:
			return fmt.Sprintf("%s IN (%s, %s)", col, val(col), val(col))
		case 1:
			return fmt.Sprintf("%s %s %s", col, []string{"<", "<=", ">", ">="}[r.IntN(4)], val(col))
		case 2:
			return fmt.Sprintf("%s BETWEEN %s AND %s", col, val(col), val(col))
		}
		return fmt.Sprintf("%s = %s", col, val(col))
	}
	used := 0
	for range 150 {
		cols := [][]string{{"a"}, {"a", "b"}, {"a", "b", "c"}, {"c", "a"}, {"b", "a"}, {"c"}}[r.IntN(6)]
		var conds []string
		for _, c := range cols {
			conds = append(conds, cond(c))
		}
		q := "SELECT k FROM t WHERE " + strings.Join(conds, " AND ") + " ORDER BY k"
		require.Equal(t, run(t, dbs[1], q, nil), run(t, dbs[0], q, nil), q)
		res, err := dbs[0].Exec(ctx, "EXPLAIN "+q, nil)
		require.NoError(t, err)
		if strings.Contains(res.Plan, "IndexScanExec: btree abc(") || strings.Contains(res.Plan, "IndexScanExec: btree ca(") {
			used++
		}
		res.Release()
	}
	require.Greater(t, used, 50, "the composite indexes answered too few of the filters")
}
