package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// term is the binary run on a pseudo-terminal, driven as a user types.
type term struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	out  strings.Builder // everything the binary wrote
	seen int             // out up to here has been matched by expect
	done chan error      // the exit of the binary
}

func startTerm(t *testing.T, env []string, args ...string) *term {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), append([]string{"TERM=xterm", "STABLEROW_DEBUG="}, env...)...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, cmd: cmd, tty: tty, done: make(chan error, 1)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			tm.mu.Unlock()
			if err != nil {
				return // EIO once the binary has exited
			}
		}
	}()
	go func() { tm.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
		tty.Close()
	})
	return tm
}

// send types s (\r is Enter, \x03 Ctrl-C, \x04 Ctrl-D).
func (tm *term) send(s string) {
	tm.t.Helper()
	if _, err := io.WriteString(tm.tty, s); err != nil {
		tm.t.Fatal(err)
	}
}

// expect waits until the output after the last match holds want and
// returns that output (up to and including want).
func (tm *term) expect(want string, within time.Duration) string {
	tm.t.Helper()
	deadline := time.Now().Add(within)
	for {
		tm.mu.Lock()
		s := tm.out.String()[tm.seen:]
		if i := strings.Index(s, want); i >= 0 {
			tm.seen += i + len(want)
			tm.mu.Unlock()
			return s[:i+len(want)]
		}
		tm.mu.Unlock()
		if time.Now().After(deadline) {
			tm.t.Fatalf("no %q within %s; output since the last match:\n%s", want, within, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exit waits for the binary to end and returns its exit status.
func (tm *term) exit(within time.Duration) int {
	tm.t.Helper()
	select {
	case err := <-tm.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			tm.t.Fatal(err)
		}
		return 0
	case <-time.After(within):
		tm.t.Fatalf("the binary did not exit within %s; output:\n%s", within, tm.out.String())
		return -1
	}
}

// TestPromptTerminal drives the interactive prompt through a
// pseudo-terminal as a user would: statements over several lines ending
// at a ';' outside a literal, the backslash commands, Ctrl-C on the text
// being typed (dropped), Ctrl-C on a running statement (canceled, the
// session goes on and the next statement runs), Ctrl-D (exit 0), and the
// history saved for the next session.
func TestPromptTerminal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT NOT NULL, s TEXT); INSERT INTO t SELECT g, 'r' FROM generate_series(1, 10) AS g(g); CREATE INDEX rid ON t USING btree (_rowid)", "-create")
	hist := filepath.Join(t.TempDir(), "history")
	tm := startTerm(t, []string{"STABLEROW_HISTORY=" + hist}, "sql", "-d", dir)
	const wait = 10 * time.Second
	tm.expect(`\? for help`, wait)
	tm.expect("stablerow> ", wait)

	tm.send("SELECT 1 AS one;\r")
	if out := tm.expect("(1 row)", wait); !strings.Contains(out, " one") {
		t.Fatalf("first statement:\n%s", out)
	}
	tm.expect("time: ", wait)

	// One statement over three lines; the ';' in the literal does not end it.
	tm.send("SELECT 'a;\r")
	tm.expect("...> ", wait)
	tm.send("b' AS s, k\r")
	tm.expect("...> ", wait)
	tm.send("FROM t WHERE k = 2;\r")
	if out := tm.expect("(1 row)", wait); !strings.Contains(out, "a;\r\nb | 2") {
		t.Fatalf("multi-line statement:\n%q", out)
	}

	tm.send(`\?` + "\r")
	tm.expect(`\d NAME`, wait)
	tm.send(`\d` + "\r")
	if out := tm.expect("rid", wait); !strings.Contains(out, "table | version | live rows | fragments | indexes") {
		t.Fatalf(`\d:\n%s`, out)
	}
	tm.send(`\d t` + "\r")
	out := tm.expect("-rows", wait)
	for _, want := range []string{"table t: version 3, 10 live rows in 1 fragment", "_rowid", "btree"} {
		if !strings.Contains(out, want) {
			t.Fatalf(`\d t lacks %q:\n%s`, want, out)
		}
	}
	tm.expect(" index ", wait) // the versions table: create, append, index
	tm.send(`\d nope` + "\r")
	tm.expect(`error: Did not find any relation named "nope".`, wait)
	tm.send(`\zz` + "\r")
	tm.expect(`unknown command \zz`, wait)

	// \timing off: no time line after a statement.
	tm.send(`\timing` + "\r")
	tm.expect("timing is off", wait)
	tm.send("SELECT 3 AS three;\r")
	tm.expect("(1 row)", wait)
	tm.send(`\timing on` + "\r")
	if out := tm.expect("timing is on", wait); strings.Contains(out, "time: ") {
		t.Fatalf(`\timing off still printed the time:\n%s`, out)
	}

	// Ctrl-C drops the statement being typed; the next one stands alone.
	tm.send("SELECT 99 AS dropped\r")
	tm.expect("...> ", wait)
	tm.send("\x03")
	tm.expect("stablerow> ", wait)
	tm.send("SELECT 5 AS five;\r")
	if out := tm.expect("(1 row)", wait); strings.Contains(out, "error") || !strings.Contains(out, " five") {
		t.Fatalf("after Ctrl-C on typed text:\n%s", out)
	}

	// Ctrl-C cancels a statement that would run for hours (10^12 rows);
	// Ctrl-C is sent until it lands while the statement runs.
	tm.send("SELECT count(*) AS n FROM generate_series(1, 1000000000000) AS g(g);\r")
	start := time.Now()
	for canceled := false; !canceled; {
		time.Sleep(300 * time.Millisecond)
		tm.send("\x03")
		tm.mu.Lock()
		canceled = strings.Contains(tm.out.String()[tm.seen:], "statement canceled by Ctrl-C")
		tm.mu.Unlock()
		if !canceled && time.Since(start) > 30*time.Second {
			t.Fatalf("Ctrl-C did not cancel the statement:\n%s", tm.out.String()[tm.seen:])
		}
	}
	tm.expect("statement canceled by Ctrl-C", wait)
	tm.expect("stablerow> ", wait)
	time.Sleep(200 * time.Millisecond) // let stray Ctrl-Cs land on the empty prompt
	tm.send("SELECT 7 AS seven;\r")
	if out := tm.expect("(1 row)", wait); !strings.Contains(out, " seven") {
		t.Fatalf("the statement after a cancellation:\n%s", out)
	}

	tm.send("\x04")
	if code := tm.exit(wait); code != 0 {
		t.Fatalf("Ctrl-D: exit %d, want 0\n%s", code, tm.out.String())
	}
	h, err := os.ReadFile(hist)
	if err != nil || !strings.Contains(string(h), "SELECT 1 AS one;") {
		t.Fatalf("history %s: %q, %v", hist, h, err)
	}

	// The next session has the history: Up brings the last line back.
	tm = startTerm(t, []string{"STABLEROW_HISTORY=" + hist}, "sql", "-d", dir)
	tm.expect("stablerow> ", wait)
	tm.send("\x1b[A\r") // Up, Enter: "SELECT 7 AS seven;" again
	tm.expect(" seven", wait)
	tm.send(`\q` + "\r")
	if code := tm.exit(wait); code != 0 {
		t.Fatalf(`\q: exit %d, want 0`, code)
	}
}

// TestPromptMidStatement: what a user types in the middle of a statement at
// the terminal. Ctrl-D with a DELETE half typed ends the session without
// running it (psql discards it too; the old prompt ran it and emptied the
// table). A backslash command on a line of its own runs as a command, not
// as SQL, and the statement being typed is kept; \p prints it, \r drops it,
// \g runs it. Inside an open literal a line starting with '\' is text.
func TestPromptMidStatement(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT NOT NULL); INSERT INTO t SELECT g FROM generate_series(1, 3) AS g(g)", "-create")
	const wait = 10 * time.Second
	hist := filepath.Join(t.TempDir(), "history")

	tm := startTerm(t, []string{"STABLEROW_HISTORY=" + hist}, "sql", "-d", dir)
	tm.expect("stablerow> ", wait)
	tm.send("DELETE FROM t\r")
	tm.expect("...> ", wait)
	tm.send("\x04")
	tm.expect("the unfinished statement was discarded, not run", wait)
	if code := tm.exit(wait); code != 0 {
		t.Fatalf("Ctrl-D: exit %d\n%s", code, tm.out.String())
	}
	if r := cli(t, "", "sql", "-d", dir, "-format", "csv", "-e", "SELECT count(*) AS n FROM t"); r.code != 0 || !strings.Contains(r.stdout, "n\n3\n") {
		t.Fatalf("after Ctrl-D on a half-typed DELETE: %+v", r)
	}

	tm = startTerm(t, []string{"STABLEROW_HISTORY=" + hist}, "sql", "-d", dir)
	tm.expect("stablerow> ", wait)
	// \d between two lines of one statement: a command; the statement goes on.
	tm.send("SELECT 41 + 1\r")
	tm.expect("...> ", wait)
	tm.send(`\d` + "\r")
	tm.expect("table | version | live rows", wait)
	tm.expect("...> ", wait) // the statement is still pending
	tm.send(`\p` + "\r")
	tm.expect("SELECT 41 + 1", wait)
	tm.expect("...> ", wait)
	tm.send("AS answer;\r")
	if out := tm.expect("(1 row)", wait); !strings.Contains(out, " answer") || !strings.Contains(out, "42") || strings.Contains(out, "error") {
		t.Fatalf("the statement around \\d:\n%s", out)
	}
	tm.expect("stablerow> ", wait)

	// \r drops what was typed.
	tm.send("DELETE FROM t\r")
	tm.expect("...> ", wait)
	tm.send(`\r` + "\r")
	tm.expect("query buffer reset (cleared)", wait)
	tm.expect("stablerow> ", wait)

	// \g runs it without a ';'.
	tm.send("SELECT count(*) AS still FROM t\r")
	tm.expect("...> ", wait)
	tm.send(`\g` + "\r")
	if out := tm.expect("(1 row)", wait); !strings.Contains(out, " still") || !strings.Contains(out, "3") {
		t.Fatalf(`\g:\n%s`, out)
	}
	tm.expect("stablerow> ", wait)

	// Inside an open literal, a line starting with '\' is part of it.
	tm.send("SELECT length('ab\r")
	tm.expect("...> ", wait)
	tm.send(`\d` + "\r")
	tm.send("') AS len;\r")
	// 'ab' + newline + '\d' + newline = 6 characters.
	if out := tm.expect("(1 row)", wait); !strings.Contains(out, " len") || !strings.Contains(out, "6") || strings.Contains(out, "table | version") {
		t.Fatalf("the literal holding a backslash line (\\d must not run):\n%s", out)
	}
	tm.send(`\q` + "\r")
	if code := tm.exit(wait); code != 0 {
		t.Fatalf(`\q: exit %d`, code)
	}
}

// TestVersionAndSuggestion: `stablerow version` and `--version` print the
// build; a mistyped command is answered with the likely one.
func TestVersionAndSuggestion(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-version"} {
		r := cli(t, "", arg)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "stablerow ") || !strings.Contains(r.stdout, runtime.Version()) {
			t.Fatalf("%s: %+v", arg, r)
		}
	}
	r := cli(t, "", "sqll")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown command "sqll" (did you mean "sql"?)`) {
		t.Fatalf("sqll: %+v", r)
	}
	r = cli(t, "", "frobnicate")
	if r.code != 2 || strings.Contains(r.stderr, "did you mean") {
		t.Fatalf("a command near nothing: %+v", r)
	}
}
