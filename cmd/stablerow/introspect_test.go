package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestCLIShowTablesDescribe: SHOW TABLES and DESCRIBE t run from -e as
// statements, with DuckDB's columns; DESCRIBE of a missing table fails
// with its name; \d and \d t run from -e as at the prompt (psql -c's
// single backslash command), where -e used to hand them to the parser.
func TestCLIShowTablesDescribe(t *testing.T) {
	dir := newDB(t) // a (k BIGINT NOT NULL, s TEXT)
	mustSQL(t, dir, "CREATE TABLE b (v VARCHAR(8), n NUMERIC(10,2))")
	out := mustSQL(t, dir, "SHOW TABLES; DESCRIBE b; describe a")
	var got [][]string
	for _, tab := range tableRows(out) {
		var rows []string
		for _, line := range tab {
			var cells []string
			for _, c := range strings.Split(line, "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			rows = append(rows, strings.Join(cells, ","))
		}
		got = append(got, rows)
	}
	want := [][]string{
		{"a", "b"},
		{"v,character varying,YES", "n,numeric,YES"},
		{"k,bigint,NO", "s,text,YES"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows %q, want %q; output:\n%s", got, want, out)
	}
	if !strings.Contains(out, "column_name | data_type") {
		t.Fatalf("DESCRIBE's header is not DuckDB's columns:\n%s", out)
	}

	r := cli(t, "", "sql", "-d", dir, "-e", "DESCRIBE nosuch")
	if r.code == 0 || !strings.Contains(r.stderr, `"nosuch" does not exist`) {
		t.Fatalf("DESCRIBE nosuch: exit %d, stderr %q", r.code, r.stderr)
	}

	out = mustSQL(t, dir, `\d`)
	if !strings.HasPrefix(out, " table | version") || !strings.Contains(out, "\n a ") || !strings.Contains(out, "\n b ") {
		t.Fatalf(`\d from -e: %q`, out)
	}
	out = mustSQL(t, dir, `\d b`)
	if !strings.HasPrefix(out, "table b: version") {
		t.Fatalf(`\d b from -e:\n%s`, out)
	}
	r = cli(t, "", "sql", "-d", dir, "-e", `\nope`)
	if r.code == 0 || !strings.Contains(r.stderr, `unknown command \nope`) {
		t.Fatalf(`\nope: exit %d, stderr %q`, r.code, r.stderr)
	}
}
