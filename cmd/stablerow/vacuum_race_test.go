package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/internal/vacuumstress"
)

// TestInsertAgainstVacuumLoop is issue 26's data loss as a user met it: a
// `stablerow sql` INSERT runs while `stablerow vacuum -grace 0s` runs in a
// loop, each in its own process. Every INSERT either fails or all its rows
// read back; before write intents, VACUUM removed the INSERT's data files,
// the INSERT still printed "ok" and every read failed. The rows per INSERT
// (more than one data file's 1Mi rows, so VACUUM can strike between two of
// them) and the rounds are STABLEROW_VACUUM_STRESS's, e.g.
//
//	STABLEROW_VACUUM_STRESS=rounds=10,rows=1000000-20000000 \
//	  go test -count=1 -timeout 0 -run TestInsertAgainstVacuumLoop ./cmd/stablerow/
func TestInsertAgainstVacuumLoop(t *testing.T) {
	def := vacuumstress.Config{Rounds: 2, Writers: 1, MinRows: 1_100_000, MaxRows: 1_300_000, Seed: 1}
	if testing.Short() {
		// make test: one INSERT of one data file, the CLI path end to end
		// (the race between files is TestWritersAgainstVacuumLoop's, in
		// package table, with small fragments).
		def = vacuumstress.Config{Rounds: 1, Writers: 1, MinRows: 200_000, MaxRows: 200_000, Seed: 1}
	}
	cfg, err := vacuumstress.FromEnv(def)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "db")
	runCLI(t, "sql", "-create", "-d", dir, "-e", "CREATE TABLE w (k BIGINT NOT NULL)")
	r := rand.New(rand.NewPCG(cfg.Seed, 26))
	var from int64 = 1
	var want int64
	failed, vacuums := 0, 0
	for round := range cfg.Rounds {
		n := int64(cfg.MinRows + r.IntN(cfg.MaxRows-cfg.MinRows+1))
		var out, errb bytes.Buffer
		ins := stablerow("sql", "-d", dir, "-e", fmt.Sprintf("INSERT INTO w SELECT g FROM generate_series(%d, %d) AS g(g)", from, from+n-1))
		ins.Stdout, ins.Stderr = &out, &errb
		if err := ins.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- ins.Wait() }()
		var insErr error
	loop:
		for {
			select {
			case insErr = <-done:
				break loop
			default:
			}
			vac := stablerow("vacuum", "-d", dir, "-grace", "0s")
			if b, err := vac.CombinedOutput(); err != nil {
				_ = ins.Process.Kill()
				<-done
				t.Fatalf("round %d: vacuum: %v\n%s", round, err, b)
			}
			vacuums++
		}
		count := countRange(t, dir, from, from+n-1)
		switch {
		case insErr == nil && !strings.Contains(out.String(), fmt.Sprintf("INSERT 0 %d\n", n)):
			t.Fatalf("round %d: INSERT of %d rows exited 0 and printed:\n%s", round, n, out.String())
		case insErr == nil && count != n:
			t.Fatalf("round %d: INSERT reported %d rows, %d read back", round, n, count)
		case insErr != nil && count != 0:
			t.Fatalf("round %d: INSERT failed (%v: %s) but %d of its rows are there", round, insErr, errb.String(), count)
		case insErr != nil:
			var ee *exec.ExitError
			if !errors.As(insErr, &ee) {
				t.Fatal(insErr)
			}
			failed++
			t.Logf("round %d: INSERT of %d rows failed cleanly (exit %d): %s", round, n, ee.ExitCode(), errb.String())
		default:
			want += n
		}
		from += n
	}
	if cfg.Rounds > 1 {
		if got := countRange(t, dir, 1, from); got != want {
			t.Fatalf("the table has %d rows, the INSERTs reported %d", got, want)
		}
	}
	t.Logf("%d INSERTs (%d failed), %d rows; %d vacuum -grace 0s runs during them", cfg.Rounds, failed, want, vacuums)
	if vacuums < cfg.Rounds {
		t.Fatalf("only %d vacuums ran during %d INSERTs", vacuums, cfg.Rounds)
	}
}

// countRange counts the rows of w with k in [lo, hi] through the CLI (a
// failure to read, such as a missing data file, fails the test).
func countRange(t *testing.T, dir string, lo, hi int64) int64 {
	t.Helper()
	out := runCLI(t, "sql", "-d", dir, "-e", fmt.Sprintf("SELECT count(*) AS n FROM w WHERE k BETWEEN %d AND %d", lo, hi))
	var n int64
	for _, line := range strings.Split(out, "\n") {
		if _, err := fmt.Sscan(strings.Trim(line, " |"), &n); err == nil {
			return n
		}
	}
	t.Fatalf("no count in:\n%s", out)
	return 0
}

// TestMissingDataFileIsCorruption: a committed data file that is gone is
// reported as corruption naming the file, with the corruption exit
// status (3), not as "not found" (1).
func TestMissingDataFileIsCorruption(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	runCLI(t, "sql", "-create", "-d", dir, "-e", "CREATE TABLE w (k BIGINT NOT NULL); INSERT INTO w SELECT g FROM generate_series(1, 1000) AS g(g)")
	data, err := filepath.Glob(filepath.Join(dir, "w", "data", "*.arrow"))
	if err != nil || len(data) != 1 {
		t.Fatalf("want one data file, got %v (%v)", data, err)
	}
	if err := os.Remove(data[0]); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd := stablerow("sql", "-d", dir, "-e", "SELECT count(*) FROM w WHERE k > 0")
	cmd.Stderr = &errb
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want status 3 (corrupt data)\n%s", err, errb.String())
	}
	name := "data/" + filepath.Base(data[0])
	if !strings.Contains(errb.String(), "corrupt data") || !strings.Contains(errb.String(), name) {
		t.Fatalf("the message does not report corruption naming %s:\n%s", name, errb.String())
	}
}
