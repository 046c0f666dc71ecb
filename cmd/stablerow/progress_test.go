package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stablerow/stablerow/progress"
)

// On a terminal a long INSERT ... SELECT, CREATE INDEX, VACUUM FULL (a
// compaction that drops deleted rows) and CLUSTER draw their progress on
// one line, rows read of the rows their scans will read, and COPY FROM a
// file the rows it has written; each erases it before the statement's own
// output; the same statements off a terminal print nothing of it. (The delay is cut to 1 ms
// so that statements of a second's work show it on any machine.)
func TestProgressOnTerminal(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(t.TempDir(), "t.csv")
	mustSQL(t, dir, "CREATE TABLE t AS SELECT g, g % 97 AS k FROM generate_series(1, 2000000) AS s(g); CREATE TABLE t2 (g BIGINT, k BIGINT); CREATE TABLE t3 (g BIGINT, k BIGINT); COPY t TO '"+csv+"' (FORMAT csv)", "-create")
	script := "INSERT INTO t2 SELECT * FROM t; CREATE INDEX t_k ON t (k); DELETE FROM t2 WHERE k < 50; VACUUM FULL t2; COPY t3 FROM '" + csv + "' (FORMAT csv); CLUSTER t USING t_k"
	tm := startTerm(t, []string{"STABLEROW_PROGRESS_AFTER=1ms"}, "sql", "-d", dir, "-e", script)
	read := regexp.MustCompile(`\r\x1b\[K[0-9,]+ of [0-9,]+ rows read \(\d+%\)`)
	written := regexp.MustCompile(`\r\x1b\[K[0-9,]+ rows written`) // COPY FROM reads a file, not a table
	for _, c := range []struct {
		status string
		line   *regexp.Regexp
	}{{"INSERT 0 2000000", read}, {"CREATE INDEX t_k (btree on k", read}, {" name | fragments_before", read}, {"COPY 2000000", written}, {"CLUSTER t USING t_k", read}} {
		status, line := c.status, c.line
		out := tm.expect(status, time.Minute)
		if !line.MatchString(out) {
			t.Errorf("before %q no progress line:\n%q", status, out)
		}
		if !strings.HasSuffix(strings.TrimSuffix(out, status), "\r\x1b[K") {
			t.Errorf("%q does not start on an erased line:\n%q", status, out)
		}
	}
	if code := tm.exit(time.Minute); code != 0 {
		t.Fatalf("exit %d", code)
	}

	t.Setenv("STABLEROW_PROGRESS_AFTER", "0s")
	r := cli(t, "", "sql", "-d", dir, "-e", "INSERT INTO t2 SELECT * FROM t")
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "rows read") || strings.Contains(r.stdout+r.stderr, "\x1b[K") {
		t.Fatalf("off a terminal: %+v", r)
	}
}

func TestProgressText(t *testing.T) {
	for _, c := range []struct {
		c    progress.Counts
		want string
	}{
		{progress.Counts{}, "running, 1.5 s"},
		{progress.Counts{Written: 1234567}, "1,234,567 rows written, 1.5 s"},
		{progress.Counts{ToRead: 36000000, Read: 12345678, Written: 999}, "12,345,678 of 36,000,000 rows read (34%), 999 rows written, 1.5 s"},
	} {
		if got := progressText(c.c, 1500*time.Millisecond); got != c.want {
			t.Errorf("%+v: %q, want %q", c.c, got, c.want)
		}
	}
}
