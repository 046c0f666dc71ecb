package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReport: the command runs the queries asked for on both engines and
// writes a report row for each, exit status 0 when all are equal; a
// query stablerow does not finish makes it exit 1 with the error in its row.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "report.md")
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"-sf", "0.01", "-dir", dir, "-reps", "2", "-threads", "2", "-q", "3,q96", "-out", out}, &bytes.Buffer{}, &stderr)
	require.Equal(t, 0, code, stderr.String())
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	report := string(b)
	require.Contains(t, report, "| query | rows | answer | stablerow ms | DuckDB ms | ratio |")
	require.Contains(t, report, "| Q3 | ")
	require.Contains(t, report, "| Q96 | 1 | equal |")
	require.Equal(t, 2, strings.Count(report, "| Q"))
	require.Contains(t, report, "stablerow threads=2")
	require.Contains(t, stderr.String(), "loaded: DuckDB")

	// A query stablerow does not finish makes it exit 1 with the error in
	// its row (a timeout, so the test does not hang on which queries the
	// engine refuses this week).
	var stdout bytes.Buffer
	code = run(context.Background(), []string{"-sf", "0.01", "-dir", dir, "-reps", "1", "-q", "96", "-timeout", "1ns"}, &stdout, &bytes.Buffer{})
	require.Equal(t, 1, code)
	require.Contains(t, stdout.String(), "| Q96 | ")
	require.Contains(t, stdout.String(), "error")
}

// TestBadFlags: a -q or -sf the command does not take is a usage error
// (exit status 2) that names the value.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-q", "100"}, {"-q", "x"}, {"-sf", "-1"}} {
		var stderr bytes.Buffer
		code := run(context.Background(), args, &bytes.Buffer{}, &stderr)
		require.Equal(t, 2, code)
		require.Contains(t, stderr.String(), args[1])
	}
}
