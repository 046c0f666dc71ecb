package plan_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// TestSortElision: a sort runs where PostgreSQL's plan has one
// (plan/ordering.go): not over an input already in the ORDER BY's order
// once its constant keys are dropped, and then a LIMIT reads its rows
// through the filter below and stops, so a condition that raises on a
// row after them does not raise (difftest seed 20261228 case 27141).
func TestSortElision(t *testing.T) {
	const ord = "FROM UNNEST(ARRAY[6, -2, 3]) WITH ORDINALITY AS v(x, o) "
	cases := []struct {
		name, sql string
		threads   int
		sorts     int // SortExecs in the plan
		want      [][]any
		wantErr   string
	}{
		{"case 27141", "SELECT CAST(CAST('-1.005' AS NUMERIC(8,2)) AS TEXT) " + ord +
			"WHERE sqrt(CAST('0.2' AS DOUBLE PRECISION) + v.x) <> CAST('1.79e308' AS DOUBLE PRECISION) ORDER BY CAST('abc ' AS VARCHAR(6)) NULLS FIRST, v.o LIMIT 1",
			1, 0, [][]any{{"-1.01"}}, ""},
		{"ordinality ascending", "SELECT v.x " + ord + "ORDER BY v.o", 1, 0,
			[][]any{{int32(6)}, {int32(-2)}, {int32(3)}}, ""},
		{"filter keeps the order", "SELECT v.x " + ord + "WHERE 10 / (v.x + 2) > 0 ORDER BY v.o LIMIT 1", 1, 0,
			[][]any{{int32(6)}}, ""},
		{"projection keeps the key", "SELECT v.x + 1, v.o " + ord + "ORDER BY 2 LIMIT 2", 1, 0,
			[][]any{{int32(7), int64(1)}, {int32(-1), int64(2)}}, ""},
		{"constant keys only", "SELECT v.x " + ord + "WHERE 10 / (v.x + 2) > 0 ORDER BY CAST('a' AS TEXT), 2 + 3 LIMIT 1", 1, 0,
			[][]any{{int32(6)}}, ""},
		// Seed 20261231 case 245660: a constant select item as a key, and
		// a scalar subquery's join (a SubPlan in PostgreSQL) over the order.
		{"a constant select item as a key", "SELECT CAST('Infinity' AS DOUBLE PRECISION), v.x " + ord + "WHERE 10 / (v.x + 2) > 0 ORDER BY 1, v.o LIMIT 1", 1, 0,
			[][]any{{math.Inf(1), int32(6)}}, ""},
		{"a scalar subquery keeps the order", "SELECT (SELECT max(id) FROM t WHERE id < 0), 10 / (v.x + 2) " + ord + "ORDER BY v.o LIMIT 1", 1, 0,
			[][]any{{nil, int32(1)}}, ""},
		// Seed 20261231 case 318877: a subquery that is a value (a mark
		// join here, a SubPlan in PostgreSQL) over the order.
		{"an EXISTS value keeps the order", "SELECT EXISTS (SELECT 1 FROM t WHERE id < 0), 10 / (v.x + 2) " + ord + "ORDER BY v.o LIMIT 1", 1, 0,
			[][]any{{false, int32(1)}}, ""},
		{"a correlated IN value keeps the order", "SELECT v.x IN (SELECT id FROM t WHERE id > v.o), 10 / (v.x + 2) " + ord + "ORDER BY v.o LIMIT 1", 1, 0,
			[][]any{{false, int32(1)}}, ""},
		// The row budget passes through a SubPlan's join to its outer
		// side: the filter below it, and the subquery itself, never see
		// the row after the LIMIT's (PostgreSQL runs both per row as the
		// Limit pulls).
		{"the budget passes a scalar subquery's join", "SELECT (SELECT max(id) FROM t WHERE id < 0), v.x " + ord + "WHERE 10 / (v.x + 2) > 0 ORDER BY v.o LIMIT 1", 1, 0,
			[][]any{{nil, int32(6)}}, ""},
		{"the budget passes a mark join", "SELECT EXISTS (SELECT 1 FROM t WHERE id < 0), v.x " + ord + "WHERE 10 / (v.x + 2) > 0 ORDER BY v.o LIMIT 1", 1, 0,
			[][]any{{false, int32(6)}}, ""},
		{"the subquery runs for the budget's rows only", "SELECT (SELECT id FROM t WHERE id > v.x * 1000), v.x " + ord + "ORDER BY v.o LIMIT 1", 1, 0,
			[][]any{{nil, int32(6)}}, ""},
		{"descending keeps the sort", "SELECT v.x " + ord + "WHERE 10 / (v.x + 2) > 0 ORDER BY v.o DESC LIMIT 1", 1, 1,
			nil, "division by zero"},
		{"nulls first keeps the sort", "SELECT v.x " + ord + "ORDER BY v.o NULLS FIRST LIMIT 1", 1, 1,
			[][]any{{int32(6)}}, ""},
		{"another key first keeps the sort", "SELECT v.x " + ord + "ORDER BY v.x, v.o LIMIT 1", 1, 1,
			[][]any{{int32(-2)}}, ""},
		{"a computed key keeps the sort", "SELECT v.x " + ord + "ORDER BY v.o + 0 LIMIT 1", 1, 1,
			[][]any{{int32(6)}}, ""},
		{"a sorted subquery", "SELECT s.id FROM (SELECT id FROM t ORDER BY id LIMIT 4) s ORDER BY s.id LIMIT 2", 1, 1,
			[][]any{{int64(10)}, {int64(11)}}, ""},
		{"a sorted subquery over partitions", "SELECT s.id FROM (SELECT id FROM t ORDER BY id LIMIT 4) s ORDER BY s.id LIMIT 2", 4, 1,
			[][]any{{int64(10)}, {int64(11)}}, ""},
		{"a window over the order keeps it", "SELECT v.x, row_number() OVER (ORDER BY v.o) " + ord + "ORDER BY v.o LIMIT 1", 1, 0,
			[][]any{{int32(6), int64(1)}}, ""},
		{"a window's sort gives its order", "SELECT v.x, row_number() OVER (ORDER BY v.x) " + ord + "ORDER BY v.x LIMIT 1", 1, 1,
			[][]any{{int32(-2), int64(1)}}, ""},
		{"two windows keep the final sort", "SELECT v.x, row_number() OVER (ORDER BY v.x), sum(v.x) OVER (ORDER BY v.o DESC) " + ord + "ORDER BY v.x LIMIT 1", 1, 3,
			[][]any{{int32(-2), int64(1), int64(1)}}, ""},
		{"a table scan keeps its sort", "SELECT id FROM t WHERE id > 10 ORDER BY id LIMIT 2", 4, 1,
			[][]any{{int64(11)}, {int64(12)}}, ""},
		{"generate_series keeps its sort", "SELECT g FROM generate_series(1, 3) AS g WHERE 1 / (g - 3) < 5 ORDER BY g LIMIT 1", 1, 1,
			nil, "division by zero"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := exectest.Mem(t)
			c := stdCatalog(t, mem)
			stmts, err := sql.Parse(tc.sql, sqlCatalog{c})
			if err != nil {
				t.Fatal(err)
			}
			rows, explain, err := run(t, mem, c, stmts[0].(*sql.Query).Plan, plan.Options{Threads: tc.threads}, nil, 2)
			if got := strings.Count(explain, "SortExec:"); got != tc.sorts {
				t.Errorf("%d SortExec, want %d:\n%s", got, tc.sorts, explain)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q\n%s", err, tc.wantErr, explain)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, explain)
			}
			equalRows(t, rows, tc.want)
		})
	}
}
