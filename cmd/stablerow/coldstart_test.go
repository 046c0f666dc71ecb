package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// gcLine is a line the runtime prints for each collection under
// GODEBUG=gctrace=1.
var gcLine = regexp.MustCompile(`(?m)^gc \d+ @`)

// TestColdSeedTakeRunsNoCollection: a fresh process answering the seed
// take over a table of 20K rows runs no garbage collection at all, from
// package initialization (where the first one used to start) to exit
// (package gcstart; package warm's allocations come after it). The answer
// is checked too, so a run that fails early cannot pass.
func TestColdSeedTakeRunsNoCollection(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the default pacing is what this tests")
	}
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT NOT NULL, s TEXT); "+
		"INSERT INTO t SELECT g, 'x'||g FROM generate_series(1, 20000) g; "+
		"CREATE INDEX rid ON t USING btree (_rowid)", "-create")
	cmd := exec.Command(bin, "sql", "-d", dir, "-format", "csv", "-p", "ids=5,3,19999,99999", "-e", seedTake)
	cmd.Env = append(os.Environ(), "STABLEROW_DEBUG=", "GODEBUG=gctrace=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	want := "ord,_rowaddr,k\n1,5,6\n2,3,4\n3,19999,20000\n4,,\n"
	if got := strings.ReplaceAll(out.String(), "\r", ""); got != want {
		t.Fatalf("seed take printed\n%s\nwant\n%s", got, want)
	}
	if gcLine.MatchString(errb.String()) {
		t.Fatalf("a cold seed take ran a collection:\n%s", strings.Join(gcLine.FindAllString(errb.String(), -1), "\n"))
	}
}
