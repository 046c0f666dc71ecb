package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestArrowOnTerminal: -format arrow with standard output on a terminal
// (a pseudo-terminal here, as a user's shell) is refused before any
// statement runs, with exit status 2 and a message that says where the
// binary stream would go wrong; it does not call arrow an unknown output
// format (issue 31 item 5). The same at the prompt, where the prompt's
// lines would be written into the stream.
func TestArrowOnTerminal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mustSQL(t, dir, "CREATE TABLE t (k BIGINT)", "-create")
	const wait = 20 * time.Second
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"-e", []string{"sql", "-d", dir, "-format", "arrow", "-e", "INSERT INTO t VALUES (1)"}, "standard output is a terminal: give -o FILE"},
		{"prompt", []string{"sql", "-d", dir, "-format", "arrow"}, "standard output is a terminal: give -o FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := startTerm(t, nil, tc.args...)
			out := tm.expect(tc.want, wait) // the message, up to the advice
			if code := tm.exit(wait); code != 2 {
				t.Errorf("exit status %d, want 2 (a usage error)", code)
			}
			if strings.Contains(out, "unknown output format") || !strings.Contains(out, "stablerow: -format arrow writes a binary Arrow IPC stream") {
				t.Errorf("message on the terminal:\n%s", out)
			}
		})
	}
	// Nothing ran: the INSERT was refused with its output.
	if rows := tableRows(mustSQL(t, dir, "SELECT count(*) AS n FROM t")); len(rows) != 1 || len(rows[0]) != 1 || rows[0][0] != "0" {
		t.Errorf("rows after the refused statements: %v", rows)
	}
}
