package main

import (
	"strings"
	"testing"
)

// A statement error prints once, without the packages' stacked prefixes,
// with the line echoed and a caret under the position, as psql prints it;
// -debug prints the whole chain. The expected texts were written by hand
// from psql 15's layout for the same mistakes.
func TestCLIErrorCaret(t *testing.T) {
	dir := t.TempDir()
	mustSQL(t, dir, "CREATE TABLE sales (amount BIGINT, region TEXT)", "-create")
	for _, c := range []struct {
		script, want string
	}{
		{"SELECT * FROM salse", `stablerow: table "salse" does not exist (did you mean "sales"?)
LINE 1: SELECT * FROM salse
                      ^
`},
		{"SELECT amout FROM sales", `stablerow: column "amout" does not exist (did you mean "amount"?)
LINE 1: SELECT amout FROM sales
               ^
`},
		{"SELECT sume(amount) FROM sales", `stablerow: unsupported: function sume (did you mean "sum"?)
LINE 1: SELECT sume(amount) FROM sales
               ^
`},
		{"SELECT 1;\nSELECT region\n  FROM sales WHERE amount = 'x'", `stablerow: statement 2 (line 2): invalid input syntax for type bigint: "x"
LINE 3:   FROM sales WHERE amount = 'x'
                                    ^
`},
		{"SELECT\tamount FRM sales", `stablerow: syntax error at or near "sales"
LINE 1: SELECT	amount FRM sales
              ` + "\t" + `           ^
`},
		{"SELECT amount / 0 FROM sales", ""}, // no row: no error
	} {
		r := cli(t, "", "sql", "-d", dir, "-e", c.script)
		if c.want == "" {
			if r.code != 0 {
				t.Errorf("%q: %+v", c.script, r)
			}
			continue
		}
		if r.code != 1 || r.stderr != c.want {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant:\n%s", c.script, r.code, r.stderr, c.want)
		}
	}
	mustSQL(t, dir, "INSERT INTO sales VALUES (1, 'north')")
	if r := cli(t, "", "sql", "-d", dir, "-e", "SELECT amount / 0 FROM sales"); r.code != 1 || r.stderr != "stablerow: division by zero in amount@0 / 0 (row: amount = 1)\n" {
		t.Errorf("runtime error: %+v", r)
	}
	r := cli(t, "", "sql", "-d", dir, "-debug", "-e", "SELECT * FROM salse")
	if r.code != 1 || !strings.Contains(r.stderr, `sql: unknown table: table "salse" does not exist at line 1, column 15`) {
		t.Errorf("-debug: %+v", r)
	}
}

// A runtime error names the expression that raised it, as EXPLAIN prints
// it, and the values of the row it raised on, found among 200,000 rows
// and under a CASE; its kind (the exit code) is unchanged.
func TestCLIRuntimeErrorNamesRow(t *testing.T) {
	dir := t.TempDir()
	mustSQL(t, dir, "CREATE TABLE t AS SELECT g, 'n' || g AS name FROM generate_series(CAST(1 AS BIGINT), 200000) AS s(g)", "-create")
	for _, c := range []struct{ script, want string }{
		{"SELECT count(*) FROM t WHERE 1000 / (g - 123457) > 1",
			"stablerow: division by zero in 1000 / (g@0 - 123457) (row: g = 123457)\n"},
		{"SELECT CASE WHEN g > 199990 THEN CAST(name AS INTEGER) END FROM t",
			"stablerow: invalid input syntax for type integer: \"n199991\" in CAST(name@1 AS int32) (row: name = 'n199991')\n"},
		{"SELECT sum(g * 2147483647 * 2147483647) FROM t WHERE g = 7 OR g < 3",
			"stablerow: bigint out of range in g@0 * 2147483647 * 2147483647 (row: g = 7)\n"},
	} {
		r := cli(t, "", "sql", "-d", dir, "-e", c.script)
		if r.code != 1 || r.stderr != c.want {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant:\n%s", c.script, r.code, r.stderr, c.want)
		}
	}
}
