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

// TestDDLBoth: -ddl both runs the paired comparison of the two variants
// and writes its report, a row per query asked for, exit status 0.
func TestDDLBoth(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.md")
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"-sf", "0.01", "-dir", t.TempDir(), "-ddl", "both", "-reps", "2", "-q", "1,19", "-out", out}, &bytes.Buffer{}, &stderr)
	require.Equal(t, 0, code, stderr.String())
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	report := string(b)
	require.Contains(t, report, "| query | rows | answers | spec ms | text ms | wall ratio | spec CPU ms | text CPU ms | CPU ratio | paired CPU ratio (middle half) | over 1.10 |")
	require.Contains(t, report, "| Q1 | 4 | equal |")
	require.Contains(t, report, "| Q19 | 1 | equal |")
	require.Equal(t, 2, strings.Count(report, "| Q"))
	require.Contains(t, stderr.String(), "loaded: spec")
}

// TestBadFlags: a -ddl or -q the command does not know is a usage error
// (exit status 2) that names the value.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-ddl", "char"}, {"-q", "23"}} {
		var stderr bytes.Buffer
		code := run(context.Background(), args, &bytes.Buffer{}, &stderr)
		require.Equal(t, 2, code)
		require.Contains(t, stderr.String(), args[1])
	}
}
