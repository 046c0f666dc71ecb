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
