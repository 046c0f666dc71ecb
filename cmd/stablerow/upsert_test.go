package main

import (
	"strings"
	"testing"
)

// TestCLIUpsert: INSERT ... ON CONFLICT DO UPDATE across processes: the
// tag counts inserted plus updated rows, the next process reads the
// updated row; a second proposal of a key the statement inserted prints
// PostgreSQL's 21000 message, exits 1 and writes nothing.
func TestCLIUpsert(t *testing.T) {
	dir := newDB(t)
	mustSQL(t, dir, `CREATE TABLE kv (k INT PRIMARY KEY, v INT); INSERT INTO kv VALUES (1, 10)`)
	out := mustSQL(t, dir, `INSERT INTO kv VALUES (1, 5), (2, 7) ON CONFLICT (k) DO UPDATE SET v = kv.v + excluded.v`)
	if !strings.Contains(out, "INSERT 0 2") {
		t.Fatalf("want tag INSERT 0 2:\n%s", out)
	}
	r := cli(t, "", "sql", "-d", dir, "-e", "INSERT INTO kv VALUES (3, 1), (3, 2) ON CONFLICT (k) DO UPDATE SET v = excluded.v")
	if want := "ON CONFLICT DO UPDATE command cannot affect row a second time"; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Fatalf("exit %d, stderr %q; want exit 1, %q", r.code, r.stderr, want)
	}
	out = mustSQL(t, dir, `SELECT k, v FROM kv ORDER BY k`)
	got := tableRows(out)
	if len(got) != 1 || strings.Join(got[0], ";") != strings.Join([]string{"1 | 15", "2 | 7"}, ";") {
		t.Fatalf("rows:\n%s", out)
	}
}
