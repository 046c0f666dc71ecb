package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// errInputCanceled: Ctrl-C at the prompt; the statement being typed is
// dropped and the session goes on.
var errInputCanceled = errors.New("input canceled")

// lineReader is where the prompt's lines come from: a line-editing
// terminal or a plain stream (a script piped in, a test).
type lineReader interface {
	// readLine shows prompt (if the reader shows prompts) and returns the
	// next line without its newline; io.EOF at the end of the input
	// (Ctrl-D), errInputCanceled on Ctrl-C.
	readLine(prompt string) (string, error)
	// remember adds a line to the history (a no-op without one).
	remember(line string)
	// close saves the history and gives the terminal back as it was.
	close() error
}

// plainReader reads lines from a stream; it prints the prompts only when
// show is set (a terminal the line editor cannot drive).
type plainReader struct {
	sc   *bufio.Scanner
	w    io.Writer
	show bool
}

func newPlainReader(in io.Reader, w io.Writer, show bool) *plainReader {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<30) // a statement line may be long (a pasted id list)
	return &plainReader{sc: sc, w: w, show: show}
}

func (p *plainReader) readLine(prompt string) (string, error) {
	if p.show {
		fmt.Fprint(p.w, prompt)
	}
	if p.sc.Scan() {
		return p.sc.Text(), nil
	}
	if err := p.sc.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}

func (p *plainReader) remember(string) {}
func (p *plainReader) close() error    { return nil }

// historyFile is where the prompt's history lives: $STABLEROW_HISTORY if
// set ("" or "-" turns it off), else stablerow/history under the user's
// cache directory (XDG_CACHE_HOME or ~/.cache on Linux).
func historyFile() string {
	if f, ok := os.LookupEnv("STABLEROW_HISTORY"); ok {
		if f == "-" {
			return ""
		}
		return f
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "stablerow", "history")
}
