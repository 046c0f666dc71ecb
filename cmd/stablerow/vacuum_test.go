package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
)

// envArgs carries the arguments of a stablerow subprocess (see
// TestStablerowProcess), separated by argSep.
const (
	envArgs = "STABLEROW_TEST_ARGS"
	argSep  = "\x1f"
)

// TestStablerowProcess is no test: the process tests start the test
// binary as a stablerow subprocess, and this runs its main.
func TestStablerowProcess(t *testing.T) {
	args, ok := os.LookupEnv(envArgs)
	if !ok {
		t.Skip("the stablerow subprocess of the process tests")
	}
	os.Args = append([]string{"stablerow"}, strings.Split(args, argSep)...)
	main()
	os.Exit(0) // before the testing package prints its verdict
}

// stablerow returns a command that runs the CLI with args in a process of
// its own.
func stablerow(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestStablerowProcess$")
	cmd.Env = append(os.Environ(), envArgs+"="+strings.Join(args, argSep))
	return cmd
}

// runCLI runs the CLI to completion and returns its standard output.
func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := stablerow(args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("stablerow %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// files lists the files under root, temporary ones included, with sizes.
func files(t *testing.T, root string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			// Listed, then renamed or removed by a writer still running
			// (the INSERT being polled renames its .tmp- files).
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = fi.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tableState reads the latest version of t and all its rows in process
// (the oracle the subprocesses are checked against).
func tableState(t *testing.T, dir string) (uint64, string) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	db, err := engine.Open(dir, engine.Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := db.Table(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Exec(context.Background(), "SELECT _rowid, k, s FROM t ORDER BY _rowid", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	rows, err := exectest.Rows(res.Batches...)
	if err != nil {
		t.Fatal(err)
	}
	return tb.Version(), fmt.Sprint(rows)
}

var totalLine = regexp.MustCompile(`(?m)^total: (removed|would remove) (\d+) files?, (\d+) bytes`)

// total parses the CLI's total line.
func total(t *testing.T, out string) (verb string, files int, bytes int64) {
	t.Helper()
	m := totalLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no total line in:\n%s", out)
	}
	files, _ = strconv.Atoi(m[2])
	bytes, _ = strconv.ParseInt(m[3], 10, 64)
	return m[1], files, bytes
}

// TestVacuumAfterKilledInsert: an INSERT killed with SIGKILL mid-write
// leaves data files no version references. The table still reads at its
// last good version; `stablerow vacuum` keeps the files while they are
// younger than the grace period, `-dry-run` only reports them, and
// `-grace 0s` removes exactly them and reports their bytes, measured here
// independently. The table reads the same afterwards.
func TestVacuumAfterKilledInsert(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	runCLI(t, "sql", "-create", "-d", dir, "-e", `CREATE TABLE t (k BIGINT NOT NULL, s TEXT);
		INSERT INTO t SELECT g, 'row' FROM generate_series(1, 3000) AS g(g);
		DELETE FROM t WHERE k % 7 = 0;
		CREATE INDEX rid ON t USING btree (_rowid)`)
	root := filepath.Join(dir, "t")
	good := files(t, root)
	version, rows := tableState(t, dir)

	// A long INSERT, killed once it stored two data files.
	ins := stablerow("sql", "-d", dir, "-e", "INSERT INTO t SELECT g, 'row' FROM generate_series(1, 50000000) AS g(g)")
	if err := ins.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		n := 0
		for p := range files(t, filepath.Join(root, "data")) {
			if _, ok := good["data/"+p]; !ok && strings.HasSuffix(p, ".arrow") && !strings.HasPrefix(p, ".tmp-") {
				n++
			}
		}
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			_ = ins.Process.Kill()
			t.Fatal("the INSERT wrote no two data files in time")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := ins.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	if err := ins.Wait(); err == nil {
		t.Fatal("the INSERT finished before it was killed")
	}

	var orphans, intents []string
	var orphanBytes int64
	for p, n := range files(t, root) {
		if _, ok := good[p]; !ok {
			if strings.HasPrefix(p, "_intents/") {
				// The killed writer's intent: its process is gone, so
				// VACUUM treats it as expired and removes it.
				intents = append(intents, p)
				continue
			}
			orphans = append(orphans, p)
			orphanBytes += n
		}
	}
	slices.Sort(orphans)
	if len(intents) != 1 {
		t.Fatalf("the killed INSERT left %d write intents, want 1: %v", len(intents), intents)
	}
	if orphanBytes < 10<<20 {
		t.Fatalf("the killed INSERT left only %d bytes: %v", orphanBytes, orphans)
	}
	t.Logf("the killed INSERT left %d files, %d bytes", len(orphans), orphanBytes)
	if v, r := tableState(t, dir); v != version || r != rows {
		t.Fatalf("after the kill the table reads version %d, want %d (rows equal: %v)", v, version, r == rows)
	}

	// The default grace period keeps them: they may be a live writer's.
	out := runCLI(t, "vacuum", "-d", dir)
	if verb, n, b := total(t, out); verb != "removed" || n != 0 || b != 0 {
		t.Fatalf("default grace removed files:\n%s", out)
	}
	if !strings.Contains(out, fmt.Sprintf("kept %d files younger than %s", len(orphans), table.DefaultCleanupMinAge)) {
		t.Fatalf("default grace does not report the %d young files:\n%s", len(orphans), out)
	}
	out = runCLI(t, "vacuum", "-d", dir, "-table", "t", "-grace", "0s", "-dry-run")
	if verb, n, b := total(t, out); verb != "would remove" || n != len(orphans) || b != orphanBytes {
		t.Fatalf("dry run: want would remove %d files, %d bytes:\n%s", len(orphans), orphanBytes, out)
	}
	if got := files(t, root); len(got) != len(good)+len(orphans) {
		t.Fatalf("the dry run deleted files")
	}

	out = runCLI(t, "vacuum", "-d", dir, "-grace", "0s")
	if verb, n, b := total(t, out); verb != "removed" || n != len(orphans) || b != orphanBytes {
		t.Fatalf("want removed %d files, %d bytes (%v):\n%s", len(orphans), orphanBytes, orphans, out)
	}
	got := files(t, root)
	if fmt.Sprint(got) != fmt.Sprint(good) {
		t.Fatalf("files after vacuum differ from the last good version's:\n got %v\nwant %v", got, good)
	}
	if v, r := tableState(t, dir); v != version || r != rows {
		t.Fatalf("after vacuum the table reads version %d, want %d (rows equal: %v)", v, version, r == rows)
	}
	out = runCLI(t, "sql", "-d", dir, "-e", "SELECT count(*) FROM t")
	if !strings.Contains(out, "2572") { // 3000 - 428 multiples of 7
		t.Fatalf("count after vacuum:\n%s", out)
	}
}

// TestVacuumCommandErrors: bad command lines are refused with typed errors
// and a missing database is not created.
func TestVacuumCommandErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var out bytes.Buffer
	for _, c := range []struct {
		args []string
		kind error
	}{
		{[]string{"-d", dir, "extra"}, errkind.InvalidArgument},
		{[]string{"-d", dir, "-grace", "-1s"}, errkind.InvalidArgument},
		{[]string{"-d", dir, "-table", "nope"}, errkind.NotFound},
		{[]string{"-d", filepath.Join(dir, "missing")}, fs.ErrNotExist},
	} {
		if err := vacuumCmd(ctx, &out, c.args); !errors.Is(err, c.kind) {
			t.Errorf("%v: got %v, want %v", c.args, err, c.kind)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("vacuum created the missing database directory: %v", err)
	}
	if err := vacuumCmd(ctx, &out, []string{"-d", dir}); err != nil {
		t.Fatal(err)
	}
	if want := "total: removed 0 files, 0 bytes (0 B)\n"; out.String() != want {
		t.Errorf("empty database: got %q, want %q", out.String(), want)
	}
}
