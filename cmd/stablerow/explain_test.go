package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIExplainFragmentCount: EXPLAIN counts an index's fragments in
// English, "covering 1 fragment" (it said "1 fragments"), "2 fragments".
func TestCLIExplainFragmentCount(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	q := "EXPLAIN SELECT v.ord, t._rowaddr FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord"
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT); INSERT INTO t VALUES (1), (2); CREATE INDEX rid ON t USING btree (_rowid)", "-create")
	out := mustSQL(t, dir, q, "-p", "ids=1,2")
	if !strings.Contains(out, "covering 1 fragment,") || strings.Contains(out, "1 fragments") {
		t.Fatalf("one covered fragment:\n%s", out)
	}
	mustSQL(t, dir, "DROP TABLE t; CREATE TABLE t (k BIGINT); INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); CREATE INDEX rid ON t USING btree (_rowid)")
	out = mustSQL(t, dir, q, "-p", "ids=1,2")
	if !strings.Contains(out, "covering 2 fragments,") {
		t.Fatalf("two covered fragments:\n%s", out)
	}
}

// TestCLIExplainLiterals: EXPLAIN through the CLI prints each constant as
// the SQL literal a user writes (issue 31 item 5): a date as DATE '...',
// not its day count; a string single-quoted with its quote doubled, not
// Go's double-quoted form; a numeric with its scale; a timestamp typed.
func TestCLIExplainLiterals(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE s (amount NUMERIC(10,2), sold_on DATE, n TEXT, ts TIMESTAMP)", "-create")
	out := mustSQL(t, dir, `EXPLAIN SELECT n FROM s WHERE amount > 50.50 AND sold_on > DATE '2026-05-01' AND n = 'x''y' AND ts < TIMESTAMP '2026-01-01 00:00:01.5' AND n IN ('a', 'b')`)
	want := `amount@0 > 50.50 AND sold_on@1 > DATE '2026-05-01' AND n@2 = 'x''y' AND ts@3 < TIMESTAMP '2026-01-01 00:00:01.5' AND n@2 IN ('a', 'b')`
	if !strings.Contains(out, want) {
		t.Fatalf("EXPLAIN:\n%s\nwant the filter:\n%s", out, want)
	}
}
