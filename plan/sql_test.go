package plan_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// sqlCatalog adapts the test catalog to sql.
type sqlCatalog struct{ c *testCatalog }

func (s sqlCatalog) TableSchema(name string) (*arrow.Schema, error) {
	t, ok := s.c.tables[name]
	if !ok {
		return nil, sql.ErrUnknownTable
	}
	return t.schema, nil
}

// TestSQLEndToEnd runs statements through sql's Substrait and this
// planner: the hand-off the engine makes.
func TestSQLEndToEnd(t *testing.T) {
	ids := []int64{5, 3, 99, 0, -1}
	cases := []struct {
		sql     string
		want    [][]any
		explain string // must appear
		absent  string // must not appear
	}{
		{"SELECT v.ord, t._rowaddr FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord",
			seedWant(ids), "TakeByKeyExec(test)", "SortExec"},
		{"SELECT v.ord, t._rowaddr FROM UNNEST(ARRAY[5, 0, -1]) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord",
			seedWant([]int64{5, 0, -1}), "TakeByKeyExec(test)", "SortExec"},
		{"SELECT id, name FROM t WHERE score > 2 AND name IS NOT NULL ORDER BY id DESC LIMIT 2",
			[][]any{{nil, "d"}, {int64(15), "b"}}, "columns=[0 1 2]", ""},
		{"SELECT count(name), count(*) FROM t WHERE _rowid > -1", [][]any{{int64(6), int64(7)}}, "AggregateExec", ""},
		{"SELECT _rowid FROM t WHERE _rowid = :x", [][]any{{uint64(7)}}, "$1", ""},
		{"SELECT id::text, CAST(score AS BIGINT) FROM t WHERE id IN (10, 12, 99)", [][]any{{"10", int64(2)}, {"12", int64(4)}}, "", ""},
		{"SELECT * FROM generate_series(1, 7, 3)", [][]any{{int32(1)}, {int32(4)}, {int32(7)}}, "GenerateSeriesExec", ""},
		{"SELECT :x + 1 AS y", [][]any{{int64(8)}}, "VirtualTableExec", ""},
	}
	for _, tc := range cases {
		t.Run(tc.sql, func(t *testing.T) {
			mem := exectest.Mem(t)
			c := stdCatalog(t, mem)
			stmts, err := sql.Parse(tc.sql, sqlCatalog{c})
			if err != nil {
				t.Fatal(err)
			}
			q, ok := stmts[0].(*sql.Query)
			if !ok {
				t.Fatalf("%T", stmts[0])
			}
			params := map[int]any{}
			for i, n := range q.ParamNames {
				params[i+1] = int64(7)
				if n == "ids" {
					params[i+1] = ids
				}
			}
			rows, explain, err := run(t, mem, c, q.Plan, plan.Options{}, params, 2)
			if err != nil {
				t.Fatalf("%v\n%s", err, explain)
			}
			equalRows(t, rows, tc.want)
			if !strings.Contains(explain, tc.explain) || (tc.absent != "" && strings.Contains(explain, tc.absent)) {
				t.Fatalf("explain:\n%s", explain)
			}
		})
	}
}

// TestSQLPlansReadWithoutDefaultCollection: every function the SQL front
// end emits reads back through the light collection; none of its plans
// pays the full YAML load (substraitfn's fallback) in a fresh process.
func TestSQLPlansReadWithoutDefaultCollection(t *testing.T) {
	stmts := []string{
		"SELECT v.ord, t._rowaddr FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord",
		"SELECT id + 1, id - 1, id * 2, id / 2, id % 3, -id, score + 1.5, score * 2.0, -score FROM t WHERE id <> 3 OR NOT (id < 4 AND id <= 5 AND id > 1 AND id >= 0)",
		"SELECT count(*), count(name) FROM t WHERE name IS NULL OR name IS NOT NULL",
		"SELECT id FROM t WHERE score = 2.5 OR name = 'x' OR id IN (1, 2) OR id BETWEEN 1 AND 2",
	}
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	before := substraitfn.Fallbacks()
	for _, s := range stmts {
		parsed, err := sql.Parse(s, sqlCatalog{c})
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if _, err := plan.Build(context.Background(), parsed[0].(*sql.Query).Plan, c, plan.Options{}); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if n := substraitfn.Fallbacks() - before; n != 0 {
		t.Fatalf("%d plans needed the full collection", n)
	}
}

// TestTextListParameter: UNNEST($1::text[]) reads a bound []string (or
// []*string with NULLs) and drives a join on a text column; a list of
// another element type is ErrParamType, not a panic or a wrong answer.
func TestTextListParameter(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	stmts, err := sql.Parse("SELECT v.ord, t.id FROM UNNEST(:names::text[]) WITH ORDINALITY AS v(name, ord) LEFT JOIN t ON t.name = v.name ORDER BY v.ord", sqlCatalog{c})
	if err != nil {
		t.Fatal(err)
	}
	q := stmts[0].(*sql.Query)
	b := "b"
	rows, explain, err := run(t, mem, c, q.Plan, plan.Options{}, map[int]any{1: []*string{&b, nil}}, 2)
	if err != nil {
		t.Fatalf("%v\n%s", err, explain)
	}
	equalRows(t, rows, [][]any{{int64(1), int64(11)}, {int64(1), int64(15)}, {int64(2), nil}}) // two rows are named b
	if _, _, err := run(t, mem, c, q.Plan, plan.Options{}, map[int]any{1: []int64{1}}, 2); !errors.Is(err, plan.ErrParamType) {
		t.Fatalf("bigint list for a text list: %v", err)
	}
}
