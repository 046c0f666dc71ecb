package plan_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// A function in FROM reading an earlier item is planned as an expand over
// that item (plan/expand.go): no join, no decorrelation, and a WHERE
// conjunct over the left item alone filters it below the expand.
func TestExpandPlans(t *testing.T) {
	cases := []struct {
		sql  string
		want [][]any
	}{
		{"SELECT id, g FROM t, generate_series(11, t.id) AS g WHERE name = 'b' ORDER BY id, g",
			[][]any{{int64(11), int64(11)}, {int64(15), int64(11)}, {int64(15), int64(12)}, {int64(15), int64(13)}, {int64(15), int64(14)}, {int64(15), int64(15)}}},
		{"SELECT id, g, o FROM t LEFT JOIN LATERAL generate_series(id, 11) WITH ORDINALITY AS x(g, o) ON TRUE WHERE id < 13 ORDER BY id, g",
			[][]any{{int64(10), int64(10), int64(1)}, {int64(10), int64(11), int64(2)}, {int64(11), int64(11), int64(1)}, {int64(12), nil, nil}}},
	}
	for _, tc := range cases {
		t.Run(tc.sql, func(t *testing.T) {
			mem := exectest.Mem(t)
			c := stdCatalog(t, mem)
			stmts, err := sql.Parse(tc.sql, sqlCatalog{c})
			if err != nil {
				t.Fatal(err)
			}
			rows, explain, err := run(t, mem, c, stmts[0].(*sql.Query).Plan, plan.Options{}, nil, 2)
			if err != nil {
				t.Fatalf("%v\n%s", err, explain)
			}
			equalRows(t, rows, tc.want)
			if strings.Contains(explain, "JoinExec") {
				t.Fatalf("a join for an expand:\n%s", explain)
			}
			// The filter on t's columns is below the expand.
			e, f := strings.Index(explain, "ExpandExec"), strings.Index(explain, "FilterExec")
			if e < 0 || f < e {
				t.Fatalf("want FilterExec under ExpandExec:\n%s", explain)
			}
		})
	}
}

// A LEFT JOIN LATERAL function's ON other than TRUE is the expand's own
// condition, per produced row (no join, no filter above it): a left row
// none of whose rows pass is NULL-extended. The answer is PostgreSQL 15's
// over the same ids (VALUES (10), (11), (12), (NULL), (14), (15), (16)).
func TestExpandLeftOn(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	stmts, err := sql.Parse("SELECT id, g FROM t LEFT JOIN LATERAL generate_series(10, t.id) AS g ON g > 11 ORDER BY id, g", sqlCatalog{c})
	if err != nil {
		t.Fatal(err)
	}
	rows, explain, err := run(t, mem, c, stmts[0].(*sql.Query).Plan, plan.Options{}, nil, 2)
	if err != nil {
		t.Fatalf("%v\n%s", err, explain)
	}
	i := func(v int64) any { return v }
	equalRows(t, rows, [][]any{{i(10), nil}, {i(11), nil}, {i(12), i(12)}, {i(14), i(12)}, {i(14), i(13)}, {i(14), i(14)},
		{i(15), i(12)}, {i(15), i(13)}, {i(15), i(14)}, {i(15), i(15)},
		{i(16), i(12)}, {i(16), i(13)}, {i(16), i(14)}, {i(16), i(15)}, {i(16), i(16)}, {nil, nil}})
	if !strings.Contains(explain, "ExpandExec") || !strings.Contains(explain, " left on ") ||
		strings.Contains(explain, "JoinExec") || strings.Contains(explain, "FilterExec") {
		t.Fatalf("want the condition in the expand:\n%s", explain)
	}
}

// Shapes the expand does not run are typed errors, not panics or wrong
// rows: generate_series over double precision (PostgreSQL has none), and
// over dates, which PostgreSQL resolves to its timestamptz form (no such
// type here).
func TestExpandRefusals(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	_, err := sql.Parse("SELECT id, g FROM t, generate_series(1.5, t.score) AS g", sqlCatalog{c})
	if !errors.Is(err, sql.ErrUnsupported) {
		t.Fatalf("generate_series over double precision: %v", err)
	}
	_, err = sql.Parse("SELECT id, g FROM t, generate_series(date '2020-01-01', date '2020-01-01' + 3, interval '1 day') AS g", sqlCatalog{c})
	if !errors.Is(err, sql.ErrUnsupported) || !strings.Contains(err.Error(), "timestamp with time zone") {
		t.Fatalf("generate_series over dates: %v", err)
	}
}

// UNNEST of a parameter list written LATERAL (it reads no earlier item:
// PostgreSQL's LATERAL changes nothing there) runs as before; it was
// refused as "this table function form (LATERAL, ...)".
func TestLateralUnnestParameter(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	stmts, err := sql.Parse("SELECT t.id, v.x FROM t CROSS JOIN LATERAL UNNEST(:ids) WITH ORDINALITY AS v(x, o) WHERE t.id = v.x + 10 ORDER BY v.o", sqlCatalog{c})
	if err != nil {
		t.Fatal(err)
	}
	rows, explain, err := run(t, mem, c, stmts[0].(*sql.Query).Plan, plan.Options{}, map[int]any{1: []int64{4, 0, 9, 2}}, 2)
	if err != nil {
		t.Fatalf("%v\n%s", err, explain)
	}
	equalRows(t, rows, [][]any{{int64(14), int64(4)}, {int64(10), int64(0)}, {int64(12), int64(2)}})
}

// An inner expand's condition reads left columns the select list does not
// (difftest seed 7 case 5826: "field 0 was pruned"): they are kept.
func TestExpandConditionColumns(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	stmts, err := sql.Parse("SELECT x.g FROM t JOIN LATERAL generate_series(t.id % 7, t.id % 7 + 2) AS x(g) ON x.g < t.id - 10 ORDER BY x.g", sqlCatalog{c})
	if err != nil {
		t.Fatal(err)
	}
	rows, explain, err := run(t, mem, c, stmts[0].(*sql.Query).Plan, plan.Options{}, nil, 3)
	if err != nil {
		t.Fatalf("%v\n%s", err, explain)
	}
	// id 11: 4..6 < 1 none; 12: 5..7 < 2 none; 14: 0..2 < 4 all; 15: 1..3 < 5 all; 16: 2..4 < 6 all.
	equalRows(t, rows, [][]any{{int64(0)}, {int64(1)}, {int64(1)}, {int64(2)}, {int64(2)}, {int64(2)}, {int64(3)}, {int64(3)}, {int64(4)}})
}
