package main

import (
	"os"
	"strings"
	"testing"
)

// TestCLIMemoryLimit: -memory-limit bounds each statement (a sort spills
// to -spill-dir and answers as without it; the directory is left empty),
// is a ceiling SET cannot lift, and a bad size is a usage error.
func TestCLIMemoryLimit(t *testing.T) {
	dir := newDB(t)
	mustSQL(t, dir, "INSERT INTO a SELECT (g * 7919) % 1009, 'x' FROM generate_series(1, 50000) AS g(g)")
	const q = "SELECT k FROM a ORDER BY k DESC"
	want := mustSQL(t, dir, q, "-format", "csv")
	spill := t.TempDir()
	got := mustSQL(t, dir, q, "-format", "csv", "-memory-limit", "256kB", "-spill-dir", spill)
	if got != want {
		t.Fatal("ORDER BY under -memory-limit 256kB differs from the unlimited answer")
	}
	if ents, _ := os.ReadDir(spill); len(ents) != 0 {
		t.Fatalf("spill files left: %v", ents)
	}
	plan := mustSQL(t, dir, "EXPLAIN ANALYZE "+q, "-memory-limit", "256kB", "-spill-dir", spill)
	if !strings.Contains(plan, "spill_count=") {
		t.Fatalf("the sort did not spill:\n%s", plan)
	}
	if r := cli(t, "", "sql", "-d", dir, "-memory-limit", "1MB", "-e", "SET memory_limit = '2MB'"); r.code == 0 || !strings.Contains(r.stderr, "limit") {
		t.Fatalf("SET above -memory-limit: exit %d, %s", r.code, r.stderr)
	}
	if r := cli(t, "", "sql", "-d", dir, "-memory-limit", "lots", "-e", "SELECT 1"); r.code != 2 || !strings.Contains(r.stderr, "memory-limit") {
		t.Fatalf("-memory-limit lots: exit %d, %s", r.code, r.stderr)
	}
}
