package engine_test

import (
	"context"
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

// TestLongInListEmitIsStandard: `substrait -emit` (SubstraitOf) writes a
// long IN list as a standard list literal, without stablerow's packed
// type, and that plan answers as the SQL does.
func TestLongInListEmitIsStandard(t *testing.T) {
	mem := exectest.Mem(t)
	db := engine.OpenMemory(engine.Options{Mem: mem})
	run(t, db, "CREATE TABLE t (k BIGINT NOT NULL, s TEXT); INSERT INTO t SELECT g, 's' || g FROM generate_series(0, 999) AS g(g)", nil)
	vals := make([]string, 100)
	for i := range vals {
		vals[i] = "'s" + strconv.Itoa(i*3) + "'"
	}
	vals[5] = "NULL"
	sql := "SELECT count(*) FROM t WHERE s IN (" + strings.Join(vals, ", ") + ")"
	js, _, err := db.SubstraitOf(context.Background(), sql)
	require.NoError(t, err)
	require.NotContains(t, string(js), "packed_list")
	require.Contains(t, string(js), `"null"`)
	res, err := db.ExecSubstrait(context.Background(), js, nil)
	require.NoError(t, err)
	defer res.Release()
	got, err := exectest.Rows(res.Batches...)
	require.NoError(t, err)
	require.Equal(t, run(t, db, sql, nil), got)
}

// TestLongInListStatementAllocsPerValue: a whole statement with a long
// IN list of literals (parse, plan, the set, the scan) allocates a
// bounded number of objects whatever the list's length: measured as the
// difference between 20K and 40K values. Before the packed list it was
// over 4 per value in the front end and about 3 more in planning.
func TestLongInListStatementAllocsPerValue(t *testing.T) {
	db := engine.OpenMemory(engine.Options{})
	run(t, db, "CREATE TABLE t (k BIGINT NOT NULL); INSERT INTO t SELECT g FROM generate_series(0, 9999) AS g(g)", nil)
	allocs := func(n int) float64 {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = strconv.Itoa(i * 7)
		}
		sql := "SELECT count(*) FROM t WHERE k IN (" + strings.Join(vals, ", ") + ")"
		return testing.AllocsPerRun(2, func() {
			res, err := db.Exec(context.Background(), sql, nil)
			if err != nil {
				t.Fatal(err)
			}
			res.Release()
		})
	}
	a, b := allocs(20_000), allocs(40_000)
	per := (b - a) / 20_000
	t.Logf("%.3f allocations per value", per)
	require.Less(t, per, 0.05)
}
