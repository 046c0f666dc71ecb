package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// count is SELECT count(*) FROM t in a run of its own (another session).
func count(t *testing.T, dir string) string {
	t.Helper()
	rows := tableRows(mustSQL(t, dir, "SELECT count(*) AS n FROM t"))
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("count: %q", rows)
	}
	return strings.TrimSpace(rows[0][0])
}

// BEGIN ... COMMIT / ROLLBACK in -e scripts and piped scripts: a committed
// block lands whole, a rolled back or abandoned one not at all, and an
// error inside a block ends the script with nothing of the block written.
func TestCLITransactionScripts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT NOT NULL); INSERT INTO t VALUES (1), (2)", "-create")

	out := mustSQL(t, dir, "BEGIN; INSERT INTO t VALUES (3); DELETE FROM t WHERE k = 1; SELECT count(*) AS n FROM t; COMMIT")
	for _, tag := range []string{"BEGIN", "INSERT 0 1", "DELETE 1", "COMMIT"} {
		if !strings.Contains(out, tag+"\n") {
			t.Fatalf("no %q in:\n%s", tag, out)
		}
	}
	if got := tableRows(out); len(got) != 1 || strings.TrimSpace(got[0][0]) != "2" {
		t.Fatalf("the block's own SELECT: %q", got)
	}
	if got := count(t, dir); got != "2" {
		t.Fatalf("after COMMIT: %s rows, want 2", got)
	}

	out = mustSQL(t, dir, "BEGIN; INSERT INTO t VALUES (4); ROLLBACK")
	if !strings.Contains(out, "ROLLBACK\n") {
		t.Fatalf("no ROLLBACK tag:\n%s", out)
	}
	if got := count(t, dir); got != "2" {
		t.Fatalf("after ROLLBACK: %s rows, want 2", got)
	}

	// A script that ends inside its block: rolled back, and said.
	r := cli(t, "", "sql", "-d", dir, "-e", "BEGIN; INSERT INTO t VALUES (5)")
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "the open transaction was rolled back") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := count(t, dir); got != "2" {
		t.Fatalf("after an abandoned block: %s rows, want 2", got)
	}

	// An error inside the block ends the script; the INSERT before it is
	// not published.
	r = cli(t, "", "sql", "-d", dir, "-e", "BEGIN; INSERT INTO t VALUES (6); SELECT 1 / 0; COMMIT")
	if r.code == 0 || !strings.Contains(r.stderr, "division by zero") || !strings.Contains(r.stderr, "statement 3") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := count(t, dir); got != "2" {
		t.Fatalf("after a failed block: %s rows, want 2", got)
	}

	// DDL inside a block is refused, typed.
	r = cli(t, "", "sql", "-d", dir, "-e", "BEGIN; CREATE TABLE u (k BIGINT); COMMIT")
	if r.code == 0 || !strings.Contains(r.stderr, "CREATE TABLE cannot run inside a transaction block") {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}

	// A piped script (no terminal): the same blocks.
	r = cli(t, "BEGIN;\nINSERT INTO t VALUES (7);\nINSERT INTO t VALUES (8);\nCOMMIT;\nBEGIN;\nDELETE FROM t;\nROLLBACK;\n", "sql", "-d", dir)
	if r.code != 0 {
		t.Fatalf("piped: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := count(t, dir); got != "4" {
		t.Fatalf("after the piped script: %s rows, want 4", got)
	}
}

// At the prompt: psql's marks of an open (*) and a failed (!) block, the
// aborted block refusing statements until ROLLBACK, and Ctrl-D with a block
// open rolling it back.
func TestPromptTransaction(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT NOT NULL); INSERT INTO t VALUES (1), (2)", "-create")
	tm := startTerm(t, []string{"STABLEROW_HISTORY=" + filepath.Join(t.TempDir(), "h")}, "sql", "-d", dir)
	const wait = 10 * time.Second
	tm.expect("stablerow> ", wait)
	tm.send("BEGIN;\r")
	tm.expect("stablerow*> ", wait)
	tm.send("INSERT INTO t VALUES (3);\r")
	tm.expect("stablerow*> ", wait)
	tm.send("SELECT 1 / 0;\r")
	tm.expect("division by zero", wait)
	tm.expect("stablerow!> ", wait)
	tm.send("SELECT count(*) FROM t;\r")
	tm.expect("current transaction is aborted, commands ignored until end of transaction block", wait)
	tm.expect("stablerow!> ", wait)
	tm.send("ROLLBACK;\r")
	tm.expect("ROLLBACK", wait)
	tm.expect("stablerow> ", wait)
	tm.send("BEGIN;\r")
	tm.expect("stablerow*> ", wait)
	tm.send("INSERT INTO t VALUES (4);\r")
	tm.expect("stablerow*> ", wait)
	tm.send("\x04") // Ctrl-D
	tm.expect("the open transaction was rolled back", wait)
	if code := tm.exit(wait); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := count(t, dir); got != "2" {
		t.Fatalf("after the prompt: %s rows, want 2", got)
	}
}

// A CLI killed inside a block (a crash): the table stays at its last
// version, and once the process is gone its intent no longer holds the
// block's data files, so VACUUM at grace 0 removes them.
func TestPromptTransactionCrash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT NOT NULL); INSERT INTO t VALUES (1), (2)", "-create")
	files := func() int {
		m, err := filepath.Glob(filepath.Join(dir, "t", "data", "*"))
		if err != nil {
			t.Fatal(err)
		}
		return len(m)
	}
	before := files()
	tm := startTerm(t, []string{"STABLEROW_HISTORY=" + filepath.Join(t.TempDir(), "h")}, "sql", "-d", dir)
	const wait = 10 * time.Second
	tm.expect("stablerow> ", wait)
	tm.send("BEGIN;\r")
	tm.expect("stablerow*> ", wait)
	tm.send("INSERT INTO t SELECT g FROM generate_series(10, 20) AS g(g);\r")
	tm.expect("INSERT 0 11", wait)
	tm.expect("stablerow*> ", wait)
	if got := files(); got <= before {
		t.Fatalf("the block stored no data file (%d, %d before)", got, before)
	}
	// While the block is open, VACUUM keeps its files (its intent).
	if r := cli(t, "", "vacuum", "-d", dir, "-grace", "0s"); r.code != 0 || files() <= before {
		t.Fatalf("vacuum during the block: exit %d, %d files\n%s%s", r.code, files(), r.stdout, r.stderr)
	}
	if err := tm.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	tm.exit(wait)
	if got := count(t, dir); got != "2" {
		t.Fatalf("after the crash: %s rows, want 2", got)
	}
	if r := cli(t, "", "vacuum", "-d", dir, "-grace", "0s"); r.code != 0 {
		t.Fatalf("vacuum: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := files(); got != before {
		t.Fatalf("after VACUUM: %d data files, want the %d before the block", got, before)
	}
}

// A block that writes two tables, run by the CLI as a subprocess: COMMIT
// publishes both (another run reads both, and the records of the commit
// sit beside the tables in .txn/), ROLLBACK neither, and a failed
// statement inside publishes neither. VACUUM of the database leaves the
// record directory alone.
func TestCLITransactionTwoTables(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT NOT NULL); CREATE TABLE u (k BIGINT NOT NULL); INSERT INTO t VALUES (1), (2)", "-create")
	both := func() string {
		t.Helper()
		rows := tableRows(mustSQL(t, dir, "SELECT (SELECT count(*) FROM t) || ',' || (SELECT count(*) FROM u) AS n"))
		if len(rows) != 1 || len(rows[0]) != 1 {
			t.Fatalf("counts: %q", rows)
		}
		return strings.TrimSpace(rows[0][0])
	}
	out := mustSQL(t, dir, "BEGIN; INSERT INTO u SELECT k * 10 FROM t; DELETE FROM t WHERE k = 1; COMMIT")
	if !strings.Contains(out, "COMMIT\n") {
		t.Fatalf("no COMMIT tag:\n%s", out)
	}
	if got := both(); got != "1,2" {
		t.Fatalf("after COMMIT: t,u = %s, want 1,2", got)
	}
	if recs, _ := filepath.Glob(filepath.Join(dir, ".txn", "*.txn")); len(recs) != 1 {
		t.Fatalf("transaction records: %q, want one", recs)
	}
	mustSQL(t, dir, "BEGIN; INSERT INTO t VALUES (7); INSERT INTO u VALUES (70); ROLLBACK")
	if got := both(); got != "1,2" {
		t.Fatalf("after ROLLBACK: t,u = %s, want 1,2", got)
	}
	r := cli(t, "", "sql", "-d", dir, "-e", "BEGIN; INSERT INTO t VALUES (8); INSERT INTO u VALUES (80); SELECT 1 / 0; COMMIT")
	if r.code == 0 || !strings.Contains(r.stderr, "division by zero") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := both(); got != "1,2" {
		t.Fatalf("after a failed block: t,u = %s, want 1,2", got)
	}
	if r := cli(t, "", "vacuum", "-d", dir, "-grace", "0s"); r.code != 0 {
		t.Fatalf("vacuum: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if recs, _ := filepath.Glob(filepath.Join(dir, ".txn", "*.txn")); len(recs) != 1 {
		t.Fatalf("after VACUUM, transaction records: %q, want one", recs)
	}
	if got := both(); got != "1,2" {
		t.Fatalf("after VACUUM: t,u = %s, want 1,2", got)
	}
}

// Two sessions change the same row: the prompt's block updates it, then
// another process updates it and commits; the block's COMMIT is refused
// with PostgreSQL's serialization failure (errkind.Conflict) and publishes
// nothing, the other process's value stands, and the prompt goes on
// outside a block (psql's prompt after a failed COMMIT). Snapshot
// isolation: inside the block the row read is the block's own, not the
// other commit's.
func TestPromptCommitConflict(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT NOT NULL, s TEXT); INSERT INTO t VALUES (1, 'old'), (2, 'two')", "-create")
	tm := startTerm(t, []string{"STABLEROW_HISTORY=" + filepath.Join(t.TempDir(), "h")}, "sql", "-d", dir)
	const wait = 10 * time.Second
	tm.expect("stablerow> ", wait)
	tm.send("BEGIN;\r")
	tm.expect("stablerow*> ", wait)
	tm.send("UPDATE t SET s = 'mine' WHERE k = 1;\r")
	tm.expect("UPDATE 1", wait)
	tm.expect("stablerow*> ", wait)
	mustSQL(t, dir, "UPDATE t SET s = 'theirs' WHERE k = 1")
	tm.send("SELECT s AS seen FROM t WHERE k = 1;\r")
	if out := tm.expect("(1 row)", wait); !strings.Contains(out, "mine") {
		t.Fatalf("the block's own write:\n%s", out)
	}
	tm.expect("stablerow*> ", wait)
	tm.send("COMMIT;\r")
	tm.expect("could not serialize access due to concurrent update", wait)
	tm.expect("stablerow> ", wait)
	tm.send(`\q` + "\r")
	if code := tm.exit(wait); code != 0 {
		t.Fatalf(`\q: exit %d`, code)
	}
	r := cli(t, "", "sql", "-d", dir, "-format", "csv", "-e", "SELECT k, s FROM t ORDER BY k")
	if r.code != 0 || r.stdout != "k,s\n1,theirs\n2,two\n" {
		t.Fatalf("after the refused COMMIT: %+v", r)
	}
}
