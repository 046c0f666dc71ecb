package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/bench/lance"
)

func TestParseFlags(t *testing.T) {
	c, err := parseFlags([]string{"-rows", "1_000,20000", "-ids", "5, 10", "-runs", "2"})
	require.NoError(t, err)
	require.Equal(t, []int{1000, 20000}, c.rows)
	require.Equal(t, []int{5, 10}, c.ids)
	require.Equal(t, 2, c.runs)
	q, err := parseFlags([]string{"-quick"})
	require.NoError(t, err)
	require.Equal(t, []int{1_000_000}, q.rows)
	_, err = parseFlags([]string{"-rows", "x"})
	require.Error(t, err)
	_, err = parseFlags([]string{"-runs", "0"})
	require.Error(t, err)
}

// TestSmallRun runs the whole command on a small table: both engines are
// built, every workload passes its differential check, and the report and
// plot are written.
func TestSmallRun(t *testing.T) {
	dir := t.TempDir()
	out, plot := filepath.Join(dir, "r.md"), filepath.Join(dir, "p.png")
	lanceDir := "../../lance"
	if err := lance.Available(lanceDir); err != nil {
		t.Logf("without LanceDB: %v", err)
		lanceDir = ""
	}
	c, err := parseFlags([]string{"-rows", "3000", "-ids", "10,500", "-keys", "5", "-runs", "1",
		"-dir", filepath.Join(dir, "db"), "-out", out, "-plot", plot, "-lance", lanceDir})
	require.NoError(t, err)
	var stdout strings.Builder
	require.NoError(t, run(context.Background(), c, &stdout))
	md, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, stdout.String(), string(md), "stdout and -out hold the same report")
	for _, w := range []string{"| take | 3K | 500 |", "| take+payload | 3K | 10 |", "| k IN-list | 3K | 5 |", "| take after delete | 3K | 500 |",
		"| take after recluster | 3K | 500 |", "| take after optimize | 3K | 10 |", "TakeByKeyExec",
		"| take+payload after update + compaction | 3K | 500 |", "| duckdb+ART+tuned |"} {
		require.True(t, strings.Contains(string(md), w), "report lacks %q", w)
	}
	if lanceDir != "" {
		require.Contains(t, string(md), "| take+payload cold (first after open) | 3K | 500 |")
		require.Contains(t, string(md), "| lancedb | takeRowIds(500 ids)")
	}
	st, err := os.Stat(plot)
	require.NoError(t, err)
	require.Greater(t, st.Size(), int64(1000))
}

// TestResultsFromLog: the progress lines of a run give back each case's
// medians (the plot can be redrawn from a run's log).
func TestResultsFromLog(t *testing.T) {
	log := "09:37:45 1M rows: lancedb on-disk bytes after load: 15669608 (15.7 MB)\n" +
		"take+payload           rows=1000000   n=10000    stablerow=13.6 ms duckdb=45.6 ms lancedb=1672 ms\n" +
		"take+payload after update + compaction rows=1000000   n=10       stablerow=1.76 ms duckdb+ART=4.11 ms\n"
	res, err := resultsFromLog(strings.NewReader(log))
	require.NoError(t, err)
	require.Len(t, res, 2)
	require.Equal(t, "take+payload", res[0].Workload)
	require.Equal(t, 10000, res[0].Query.Size())
	require.Equal(t, []string{"stablerow", "duckdb", "lancedb"}, res[0].Engines)
	require.Equal(t, 1672*time.Millisecond, res[0].Median(2))
	require.Equal(t, "take+payload after update + compaction", res[1].Workload)
}
