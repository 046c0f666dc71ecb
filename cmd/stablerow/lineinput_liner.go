//go:build stablerow_full

package main

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/peterh/liner"
)

// The line editor is linked into the full build only (full.go says why);
// the query-path build runs the full one for a prompt on a terminal.

// linerReader edits lines on a terminal with github.com/peterh/liner
// (Emacs keys, history search with Ctrl-R, history kept in a file between
// sessions). Chosen over reeflective/readline: liner is small (two
// dependencies), pure Go, and gives the terminal back in its own mode
// between prompts, so Ctrl-C while a statement runs is an ordinary SIGINT
// the session turns into a cancellation.
type linerReader struct {
	ln      *liner.State
	history string // file the history is read from and saved to; "" for none
}

func newLinerReader() *linerReader {
	ln := liner.NewLiner()
	ln.SetCtrlCAborts(true)
	ln.SetMultiLineMode(true)
	r := &linerReader{ln: ln, history: historyFile()}
	if r.history != "" {
		if f, err := os.Open(r.history); err == nil {
			ln.ReadHistory(f) // a damaged history is a lost history, not a failed session
			f.Close()
		}
	}
	return r
}

func (r *linerReader) readLine(prompt string) (string, error) {
	line, err := r.ln.Prompt(prompt)
	if errors.Is(err, liner.ErrPromptAborted) {
		return "", errInputCanceled
	}
	return line, err
}

func (r *linerReader) remember(line string) {
	if line != "" {
		r.ln.AppendHistory(line)
	}
}

func (r *linerReader) close() error {
	if r.history != "" {
		if err := os.MkdirAll(filepath.Dir(r.history), 0o700); err == nil {
			if f, err := os.OpenFile(r.history, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600); err == nil {
				r.ln.WriteHistory(f)
				f.Close()
			}
		}
	}
	return r.ln.Close()
}
