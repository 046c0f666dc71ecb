package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeTestSummary: `make test` ends with a line counting the Go test
// packages that passed, failed and had no tests (issue 31 item 9), even
// when a step fails. It runs the test target's summary script as make
// does, around a stand-in for the steps that prints go test's lines and
// fails, and reads make's own plan of the target (make -n) to check the
// target goes through it.
func TestMakeTestSummary(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	steps := `printf 'ok  \tgithub.com/x/a\t0.1s\n?   \tgithub.com/x/b\t[no test files]\n--- FAIL: TestY (0.00s)\nFAIL\nFAIL\tgithub.com/x/c\t0.2s\nok  \tgithub.com/x/d\t(cached)\n'; exit 2`
	cmd := exec.Command(filepath.Join(root, "scripts", "test-summary.sh"), "bash", "-c", steps)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Errorf("exit: %v, want the steps' status 2", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if last := lines[len(lines)-1]; last != "make test: packages: 2 passed, 1 failed, 1 skipped" {
		t.Errorf("last line %q; output:\n%s", last, out)
	}
	if !strings.Contains(string(out), "--- FAIL: TestY") {
		t.Errorf("the steps' output is not passed through:\n%s", out)
	}

	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make is not installed: %v", err)
	}
	plan, err := exec.Command("make", "-C", root, "-n", "--no-print-directory", "test", "MAKE=echo make").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n test: %v\n%s", err, plan)
	}
	if !strings.HasPrefix(string(plan), "scripts/test-summary.sh ") {
		t.Errorf("make test does not run through scripts/test-summary.sh:\n%s", plan)
	}
}
