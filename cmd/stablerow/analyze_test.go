package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
)

// distinctCounts opens the database in dir and returns table name's
// version and distinct counts per column.
func distinctCounts(t *testing.T, dir, name string) (uint64, []float64) {
	t.Helper()
	db, err := engine.Open(dir, engine.Options{Mem: exectest.Mem(t)})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := db.Table(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	counts, ok, err := tb.Manifest().DistinctCounts()
	if err != nil || !ok {
		t.Fatalf("distinct counts of %s: ok=%v err=%v", name, ok, err)
	}
	return tb.Version(), counts
}

// TestAnalyzeCLI: ANALYZE through the CLI, in a process of its own,
// commits a version whose distinct counts are the live rows': 1000 rows
// of k = g % 500 and a unique g, of which the DELETE leaves the 100 with
// g % 10 = 0 (k: 50 values among them). Before, the sketches still
// count the deleted rows (capped at the 100 live ones); after, k has 50.
// ANALYZE of every table and of an unknown one behave as PostgreSQL's.
func TestAnalyzeCLI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	runCLI(t, "sql", "-create", "-d", dir, "-e", `CREATE TABLE t (g BIGINT NOT NULL, k BIGINT NOT NULL);
		INSERT INTO t SELECT g, g % 500 FROM generate_series(1, 1000) AS g(g);
		DELETE FROM t WHERE g % 10 <> 0`)
	v0, before := distinctCounts(t, dir, "t")
	if before[1] != 100 {
		t.Fatalf("before ANALYZE: k counts %v, want the 100 live rows (the cap)", before[1])
	}
	out := runCLI(t, "sql", "-d", dir, "-e", "ANALYZE t")
	if !strings.Contains(out, "ANALYZE") {
		t.Errorf("ANALYZE printed %q, want its command tag", out)
	}
	v1, after := distinctCounts(t, dir, "t")
	if v1 != v0+1 {
		t.Errorf("ANALYZE committed version %d after %d, want one version", v1, v0)
	}
	if after[0] < 97 || after[0] > 103 || after[1] < 48.5 || after[1] > 51.5 {
		t.Errorf("after ANALYZE: counts %v, want about 100 and 50", after)
	}
	runCLI(t, "sql", "-d", dir, "-e", "ANALYZE")
	if v2, _ := distinctCounts(t, dir, "t"); v2 != v1+1 {
		t.Errorf("ANALYZE of every table: version %d, want %d", v2, v1+1)
	}
	cmd := stablerow("sql", "-d", dir, "-e", "ANALYZE nosuch")
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "nosuch") {
		t.Errorf("ANALYZE nosuch: err %v, output %q; want an unknown table error", err, msg)
	}
}
