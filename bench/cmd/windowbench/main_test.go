package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary be the child process, as the command is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestWindowsAgreeWithDuckDB runs every measured query on a small table
// in both engines, as the benchmark does (children, alternated), and
// requires equal answers: DuckDB is the oracle for stablerow's windows.
func TestWindowsAgreeWithDuckDB(t *testing.T) {
	c := config{rows: 5000, reps: 2, threads: 2, mem: "256MB", dir: t.TempDir()}
	var out bytes.Buffer
	if err := c.main(context.Background(), &out, ""); err != nil {
		t.Fatal(err)
	}
	report := out.String()
	if strings.Contains(report, "DIFFERENT") || strings.Count(report, "| equal |") != len(queries()) {
		t.Fatalf("answers differ:\n%s", report)
	}
}
