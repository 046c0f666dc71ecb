package main

import (
	"strings"
	"testing"
)

// TestCLICheckViolation: a CHECK constraint declared by one process is
// enforced by the next: the violating INSERT prints PostgreSQL's
// message alone (no stacked prefixes) and exits 1 (invalid input), and
// writes nothing; a NOT NULL violation reads as PostgreSQL's too.
func TestCLICheckViolation(t *testing.T) {
	dir := newDB(t)
	mustSQL(t, dir, `CREATE TABLE acct (id INT PRIMARY KEY, balance NUMERIC(10,2) NOT NULL CHECK (balance >= 0))`)
	r := cli(t, "", "sql", "-d", dir, "-e", "INSERT INTO acct VALUES (1, -5)")
	if want := "stablerow: new row for relation \"acct\" violates check constraint \"acct_balance_check\"\n"; r.code != 1 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q; want exit 1, %q", r.code, r.stderr, want)
	}
	r = cli(t, "", "sql", "-d", dir, "-e", "INSERT INTO acct (id) VALUES (2)")
	if r.code != 1 || !strings.Contains(r.stderr, `null value in column "balance" of relation "acct" violates not-null constraint`) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	out := mustSQL(t, dir, `SELECT count(*) FROM acct`)
	if got := tableRows(out); len(got) != 1 || len(got[0]) != 1 || got[0][0] != "0" {
		t.Fatalf("a refused row was written:\n%s", out)
	}
}
