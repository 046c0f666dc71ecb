package engine_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stretchr/testify/require"
)

// TestLongInListPlan: a long IN list of constants plans as one typed set
// (EXPLAIN names the list by its length, not its 5,000 values), answers
// as the short form does, and uses an index on its column as the short
// form does (issue 26 item 6).
func TestLongInListPlan(t *testing.T) {
	mem := exectest.Mem(t)
	db := engine.OpenMemory(engine.Options{Mem: mem})
	run(t, db, "CREATE TABLE t (k BIGINT NOT NULL, s TEXT); INSERT INTO t SELECT g, 's' || g FROM generate_series(0, 9999) AS g(g)", nil)
	vals := make([]string, 5000)
	for i := range vals {
		vals[i] = strconv.Itoa(i * 3)
	}
	vals[7] = "NULL"
	list := "(" + strings.Join(vals, ", ") + ")"
	plan := fmt.Sprint(run(t, db, "EXPLAIN SELECT count(*) FROM t WHERE k IN "+list, nil))
	require.Contains(t, plan, "IN (4999 values and NULL)")
	require.Less(t, len(plan), 4000, plan)
	require.Equal(t, [][]any{{int64(3333)}}, run(t, db, "SELECT count(*) FROM t WHERE k IN "+list, nil))
	require.Equal(t, [][]any{{int64(0)}}, run(t, db, "SELECT count(*) FROM t WHERE k NOT IN "+list, nil))
	require.Equal(t, [][]any{{int64(6667)}}, run(t, db, "SELECT count(*) FROM t WHERE k NOT IN "+strings.Replace(list, "NULL", "-1", 1), nil))

	// A list without NULL is an index's key set (one with a NULL is left
	// to the filter, as a short one is).
	run(t, db, "CREATE INDEX tk ON t (k)", nil)
	list = strings.Replace(list, "NULL", "-1", 1)
	plan = fmt.Sprint(run(t, db, "EXPLAIN SELECT s FROM t WHERE k IN "+list, nil))
	require.Contains(t, plan, "IndexScanExec", plan)
	require.Equal(t, [][]any{{int64(3333)}}, run(t, db, "SELECT count(*) FROM t WHERE k IN "+list, nil))
}
