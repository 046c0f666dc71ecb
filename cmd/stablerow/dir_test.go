package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIMissingDir: -d naming a directory that does not exist is an
// error for every command that reads a database, and nothing is created
// (engine.Open used to MkdirAll, so a typo ran against a new empty
// database); `sql -create` creates it.
func TestCLIMissingDir(t *testing.T) {
	root := t.TempDir()
	missing := filepath.Join(root, "tpyo")
	for _, args := range [][]string{
		{"sql", "-d", missing, "-e", "SELECT 1"},
		{"sql", "-d", missing, "-e", "CREATE TABLE t (k BIGINT)"},
		{"substrait", "-d", missing, "-emit", "SELECT 1"},
		{"vacuum", "-d", missing},
		{"inspect", missing},
	} {
		r := cli(t, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, missing) {
			t.Errorf("stablerow %s: exit %d, stderr %q; want 1 naming the directory", strings.Join(args, " "), r.code, r.stderr)
		}
		if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("stablerow %s created %s", strings.Join(args, " "), missing)
		}
	}
	if r := cli(t, "", "sql", "-d", missing, "-e", "SELECT 1"); !strings.Contains(r.stderr, "-create") {
		t.Errorf("the error does not say how to create a database: %q", r.stderr)
	}
	mustSQL(t, missing, "CREATE TABLE t (k BIGINT); INSERT INTO t VALUES (1)", "-create")
	if got := tableRows(mustSQL(t, missing, "SELECT k FROM t")); len(got) != 1 || len(got[0]) != 1 || got[0][0] != "1" {
		t.Fatalf("rows after sql -create: %v", got)
	}
}

// TestCLIDemoDir: demo deletes only what it made. A non-empty directory
// without its marker is refused and left as it was (demo used to delete
// DIR/t of any directory); an absent directory is created and marked, and
// a second run in it starts afresh.
func TestCLIDemoDir(t *testing.T) {
	root := t.TempDir()
	mine := filepath.Join(root, "mine")
	if err := os.MkdirAll(filepath.Join(mine, "t"), 0o755); err != nil {
		t.Fatal(err)
	}
	precious := filepath.Join(mine, "t", "precious.txt")
	if err := os.WriteFile(precious, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := cli(t, "", "demo", "-d", mine, "-rows", "1000", "-ids", "10")
	if r.code == 0 || !strings.Contains(r.stderr, "refusing") || !strings.Contains(r.stderr, mine) {
		t.Fatalf("demo in a foreign directory: exit %d, stderr %q", r.code, r.stderr)
	}
	if b, err := os.ReadFile(precious); err != nil || string(b) != "keep me" {
		t.Fatalf("demo touched a directory it did not make: %q, %v", b, err)
	}

	fresh := filepath.Join(root, "fresh", "demo")
	for run := 1; run <= 2; run++ {
		r := cli(t, "", "demo", "-d", fresh, "-rows", "1000", "-ids", "10")
		if r.code != 0 || !strings.Contains(r.stdout, "Arrow memory outstanding: 0 bytes") {
			t.Fatalf("demo run %d in %s: exit %d\nstdout:\n%s\nstderr:\n%s", run, fresh, r.code, r.stdout, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(fresh, demoMarker)); err != nil {
			t.Fatalf("run %d: no marker: %v", run, err)
		}
	}
}

// TestCLIDemoOffTerminal: with its output redirected (a pipe here, a log
// file for a user) demo draws no progress bar: no carriage-return frames,
// one line per finished step.
func TestCLIDemoOffTerminal(t *testing.T) {
	r := cli(t, "", "demo", "-d", filepath.Join(t.TempDir(), "demo"), "-rows", "200000", "-ids", "10")
	if r.code != 0 {
		t.Fatalf("demo: exit %d\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout+r.stderr, "\r"); n != 0 {
		t.Fatalf("%d carriage returns in the redirected output; stderr %q", n, r.stderr)
	}
	if !strings.Contains(r.stdout, "appended 200000 rows in ") {
		t.Fatalf("no line for the finished append:\n%s", r.stdout)
	}
}
