package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	stexec "github.com/stablerow/stablerow/exec"
)

// peakRSS runs the binary with args and returns its peak resident set
// (getrusage's ru_maxrss) in bytes, failing the test unless it exits 0.
func peakRSS(t *testing.T, args ...string) int64 {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "STABLEROW_DEBUG=", "GOGC=", "GOMEMLIMIT=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
}

// TestCLITakePeakRSS: the README's seed take of n ids from -p ids=@FILE,
// run as a user runs it, peaks at the process's fixed cost (the same
// process running SELECT 1) plus the list of ids (8 bytes an id: it stays
// whole) and one probe window's state (some 80 bytes a key of
// DefaultSystemProbeBatch), each doubled for the collector's pacing, plus
// a little slack; not in proportion to the file's text or to n windows.
// Before, the file was read whole and split into a string per id (some
// 40 bytes an id beside the list) and the take probed 1M ids at a time:
// 10M ids peaked at 804 MB.
func TestCLITakePeakRSS(t *testing.T) {
	n := 2_000_000
	if testing.Short() {
		n = 1_000_000
	}
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, fmt.Sprintf(`CREATE TABLE t (k BIGINT NOT NULL, s TEXT);
		INSERT INTO t SELECT g, 'row' FROM generate_series(1, %d) AS g(g);
		CREATE INDEX rid ON t USING btree (_rowid)`, n), "-create")
	ids := filepath.Join(t.TempDir(), "ids.txt")
	f, err := os.Create(ids)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	r := rand.New(rand.NewPCG(26, 7))
	for range n {
		fmt.Fprintln(w, r.Int64N(int64(n)+int64(n)/20)) // ~5% never assigned
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	base := peakRSS(t, "sql", "-d", dir, "-e", "SELECT 1")
	out := filepath.Join(t.TempDir(), "take.csv")
	take := peakRSS(t, "sql", "-d", dir, "-format", "csv", "-o", out, "-p", "ids=@"+ids, "-e",
		`SELECT v.ord, t._rowaddr FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
		 LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`)
	// The answer is whole and in driving order.
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != n+1 || lines[0] != "ord,_rowaddr" || !strings.HasPrefix(lines[1], "1,") || !strings.HasPrefix(lines[n], fmt.Sprintf("%d,", n)) {
		t.Fatalf("take of %d ids wrote %d lines: %q ... %q", n, len(lines), lines[:2], lines[len(lines)-1])
	}
	bound := base + 2*(8*int64(n)+80*stexec.DefaultSystemProbeBatch) + 32<<20
	t.Logf("%d ids: peak RSS %d MB; SELECT 1 %d MB; bound %d MB", n, take>>20, base>>20, bound>>20)
	if take > bound {
		t.Fatalf("a take of %d ids peaked at %d MB RSS, over %d MB (SELECT 1: %d MB)", n, take>>20, bound>>20, base>>20)
	}
}
