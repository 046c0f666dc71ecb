package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
)

// TestReport: each error kind maps to its exit status and message; an
// internal error never shows the panic unless debug is on.
func TestReport(t *testing.T) {
	internal := fmt.Errorf("statement 1 (line 1): %w", &engine.InternalError{Panic: "secret panic text", Stack: []byte("goroutine 1 [running]:\nmain.x()")})
	cases := []struct {
		err   error
		debug bool
		code  int
		has   []string
		hasnt []string
	}{
		{fmt.Errorf("open: %w", errkind.New(errkind.Corrupt, "table: manifest checksum mismatch")), false, 3, []string{"corrupt data", "checksum"}, nil},
		{fmt.Errorf("commit: %w", errkind.New(errkind.Conflict, "table: version 3 exists")), false, 4, []string{"conflict"}, nil},
		{internal, false, 70, []string{"internal error: please report", "-debug"}, []string{"secret", "goroutine"}},
		{internal, true, 70, []string{"internal error: please report", "secret panic text", "goroutine 1"}, nil},
		{fmt.Errorf("x: %w", engine.ErrParam), false, 1, []string{"bad parameter"}, nil},
		{usageError{errors.New("flag provided but not defined: -zz")}, false, 2, []string{"-zz"}, nil},
		{usageError{flag.ErrHelp}, false, 0, nil, []string{"help"}}, // the usage asked for is printed by parseFlags
	}
	defer func(d bool) { debug = d }(debug)
	for _, c := range cases {
		debug = c.debug
		var w bytes.Buffer
		if code := report(&w, c.err); code != c.code {
			t.Errorf("%v: exit %d, want %d", c.err, code, c.code)
		}
		for _, s := range c.has {
			if !strings.Contains(w.String(), s) {
				t.Errorf("%v (debug %v): output %q lacks %q", c.err, c.debug, w.String(), s)
			}
		}
		for _, s := range c.hasnt {
			if strings.Contains(w.String(), s) {
				t.Errorf("%v (debug %v): output %q shows %q", c.err, c.debug, w.String(), s)
			}
		}
	}
}

// TestPromptInteractive: on a terminal an error is printed and the prompt
// goes on with the next input; the rest of a failed line is not run.
func TestPromptInteractive(t *testing.T) {
	db, err := engine.Open(t.TempDir(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	in := strings.NewReader("SELECT nope; SELECT 2 AS skipped;\nSELECT 1 AS one\n;\n")
	if err := prompt(context.Background(), db, nil, sqlOptions{maxRows: 50}, newPlainReader(in, &out, true), &out, true); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	// The error echoes the line it names (with "skipped" in it); the
	// statement after the failed one must not have printed its column.
	if !strings.Contains(s, "error: ") || regexp.MustCompile(`(?m)^ skipped`).MatchString(s) || !strings.Contains(s, " one") || !strings.Contains(s, "       ...> ") {
		t.Fatalf("prompt output:\n%s", s)
	}
}
