package main

import (
	"strings"
	"testing"
)

// TestCLIViewsSurviveRestart: a view created by one run of the binary is
// there for the next (each run opens the database again): it answers
// from the table's current rows, SHOW TABLES and \d list it, \d v shows
// its columns and SELECT, and DROP VIEW in a later run removes it.
func TestCLIViewsSurviveRestart(t *testing.T) {
	dir := newDB(t) // a (k BIGINT NOT NULL, s TEXT)
	mustSQL(t, dir, "INSERT INTO a VALUES (1, 'x'), (2, NULL); CREATE VIEW named (key, label) AS SELECT k, s FROM a WHERE s IS NOT NULL")
	mustSQL(t, dir, "INSERT INTO a VALUES (3, 'z')")
	out := mustSQL(t, dir, "SELECT key, label FROM named ORDER BY key", "-format", "csv")
	if out != "key,label\n1,x\n3,z\n" {
		t.Fatalf("the view after a restart:\n%s", out)
	}
	if out := mustSQL(t, dir, "SHOW TABLES", "-format", "csv"); out != "table_name\na\nnamed\n" {
		t.Fatalf("SHOW TABLES:\n%s", out)
	}
	out = mustSQL(t, dir, `\d`)
	if !strings.Contains(out, "named | key, label") {
		t.Fatalf(`\d does not list the view:`+"\n%s", out)
	}
	out = mustSQL(t, dir, `\d named`)
	if !strings.Contains(out, "view named") || !strings.Contains(out, "label  | text") || !strings.Contains(out, "SELECT k, s FROM a WHERE s IS NOT NULL") {
		t.Fatalf(`\d named:`+"\n%s", out)
	}
	r := cli(t, "", "sql", "-d", dir, "-e", "DROP TABLE a")
	if r.code == 0 || !strings.Contains(r.stderr, "cannot drop table a because other objects depend on it") {
		t.Fatalf("DROP TABLE of a view's table: exit %d\n%s", r.code, r.stderr)
	}
	mustSQL(t, dir, "DROP VIEW named")
	r = cli(t, "", "sql", "-d", dir, "-e", "SELECT * FROM named")
	if r.code == 0 || !strings.Contains(r.stderr, `"named"`) {
		t.Fatalf("the dropped view: exit %d\n%s", r.code, r.stderr)
	}
	mustSQL(t, dir, "DROP TABLE a")
}
