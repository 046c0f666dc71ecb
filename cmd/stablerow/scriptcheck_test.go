package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A script with a syntax error anywhere runs nothing: -e, a script piped
// in and one redirected from a file are parsed whole first (before this,
// statement 1 had committed when statement 2's error was reported). The
// error names the statement's line in the whole script.
func TestScriptParsedBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	mustSQL(t, dir, "CREATE TABLE kept (a INT)", "-create")
	script := "INSERT INTO kept VALUES (1);\nCREATE TABLE made (a INT);\n\\d\nSELECT 1;\nSELEC 2;\nINSERT INTO kept VALUES (2);\n"
	file := filepath.Join(t.TempDir(), "s.sql")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := map[string]func() result{
		// -e is SQL only: no backslash command.
		"-e": func() result {
			return cli(t, "", "sql", "-d", dir, "-e", strings.Replace(script, "\\d\n", "SELECT 0;\n", 1))
		},
		"pipe":  func() result { return cli(t, script, "sql", "-d", dir) },
		"<file": func() result { return cliFile(t, file, "sql", "-d", dir) },
	}
	for name, run := range runs {
		r := run()
		if r.code != 1 || !strings.Contains(r.stderr, `syntax error at or near "SELEC"`) || !strings.Contains(r.stderr, "LINE 5: SELEC 2;") {
			t.Errorf("%s: %+v", name, r)
		}
		if r.stdout != "" {
			t.Errorf("%s: a statement ran before the check: %q", name, r.stdout)
		}
	}
	if out := mustSQL(t, dir, "SELECT count(*) FROM kept"); !strings.Contains(out, " 0") {
		t.Errorf("a statement of the failed scripts committed:\n%s", out)
	}
	if r := cli(t, "", "sql", "-d", dir, "-e", "SELECT * FROM made"); r.code == 0 {
		t.Errorf("CREATE TABLE of the failed scripts committed: %+v", r)
	}

	// A good script still runs, piped and from a file, backslash commands
	// and \q included (the check stops at \q; the run stops there too).
	good := "CREATE TABLE made (a INT);\nINSERT INTO made\n  VALUES (7);\n\\d\nSELECT a FROM made;\n\\q\nSELEC 8;\n"
	if err := os.WriteFile(file, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := cliFile(t, file, "sql", "-d", dir); r.code != 0 || !strings.Contains(r.stdout, " 7") {
		t.Fatalf("<file: %+v", r)
	}
	if r := cli(t, strings.Replace(good, "made", "made2", 3), "sql", "-d", dir); r.code != 0 || !strings.Contains(r.stdout, " 7") {
		t.Fatalf("pipe: %+v", r)
	}
}

// cliFile runs the binary with standard input redirected from file (a
// regular file, which the check reads twice rather than copying).
func cliFile(t *testing.T, file string, args ...string) result {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "STABLEROW_DEBUG=")
	var out, errb strings.Builder
	cmd.Stdin, cmd.Stdout, cmd.Stderr = f, &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}
