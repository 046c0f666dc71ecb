package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestCLIIndexesSurviveRestart: a composite DESC index and a unique index
// created by one process are used, and enforced, by the next ones; DROP
// INDEX in one process is seen by the next.
func TestCLIIndexesSurviveRestart(t *testing.T) {
	dir := newDB(t)
	mustSQL(t, dir, `CREATE TABLE m (a INTEGER, b TEXT, c BIGINT);
		INSERT INTO m SELECT g % 50, 'v' || (g % 7), g FROM generate_series(1, 2000) AS g(g);
		CREATE INDEX m_ab ON m (a, b DESC);
		CREATE UNIQUE INDEX m_c ON m (c)`)

	out := mustSQL(t, dir, `EXPLAIN SELECT c FROM m WHERE a = 7 AND b >= 'v5'; SELECT count(*) FROM m WHERE a = 7 AND b >= 'v5'`)
	if !strings.Contains(out, "IndexScanExec: btree m_ab(a, b DESC)") {
		t.Fatalf("the index built by another process is not used:\n%s", out)
	}
	want := 0
	for g := 1; g <= 2000; g++ {
		if g%50 == 7 && fmt.Sprintf("v%d", g%7) >= "v5" {
			want++
		}
	}
	if got := tableRows(out); len(got) != 2 || len(got[1]) != 1 || got[1][0] != fmt.Sprint(want) {
		t.Fatalf("count %q, want %d:\n%s", got, want, out)
	}

	r := cli(t, "", "sql", "-d", dir, "-e", "INSERT INTO m VALUES (1, 'x', 2000)")
	if r.code == 0 || !strings.Contains(r.stderr, `duplicate key value violates unique constraint "m_c"`) {
		t.Fatalf("unique index of another process not enforced: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	mustSQL(t, dir, `DROP INDEX m_c`)
	mustSQL(t, dir, `INSERT INTO m VALUES (1, 'x', 2000)`)
	r = cli(t, "", "sql", "-d", dir, "-e", "DROP INDEX m_c")
	if r.code == 0 || !strings.Contains(r.stderr, `index "m_c" does not exist`) {
		t.Fatalf("dropped index still there: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
