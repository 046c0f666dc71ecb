package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/errkind"
)

// The text of an error as the CLI shows it (issue 31): the message
// without the packages' stacked sentinel texts (errkind.Message), and,
// when the error names a place in the statement the user gave, that line
// echoed with a caret under the column, as psql does:
//
//	stablerow: column "amout" does not exist (did you mean "amount"?)
//	LINE 1: select amout from s
//	               ^
//
// -debug (STABLEROW_DEBUG=1) prints the whole chain instead, as a report
// to the developers needs it.

// scriptError is an error of a statement of text (a -e script, a file,
// the lines typed at the prompt), kept so the error's line can be echoed.
type scriptError struct {
	text  string
	first int // lines of the input before text's first line
	err   error
}

func (e *scriptError) Error() string { return e.err.Error() }
func (e *scriptError) Unwrap() error { return e.err }

// inScript marks err as an error of a statement of text, which begins
// after the input's first lines (0: text is the whole input).
func inScript(text string, first int, err error) error {
	var se *scriptError
	if err == nil || errors.As(err, &se) {
		return err
	}
	return &scriptError{text: text, first: first, err: err}
}

// errorText is err for a person: its message, then the line it names
// with a caret when the text is known. It ends without a newline.
func errorText(err error) string {
	if debug {
		return err.Error()
	}
	var se *scriptError
	var loc *errkind.Located
	if !errors.As(err, &se) || !errors.As(err, &loc) {
		return errkind.Message(err, false)
	}
	line, ok := lineOf(se.text, loc.Line-se.first)
	if !ok {
		return errkind.Message(err, false)
	}
	return errkind.Message(err, true) + "\n" + caretLines(loc.Line, line, loc.Column)
}

// lineOf returns line n (from 1) of text.
func lineOf(text string, n int) (string, bool) {
	lines := strings.Split(text, "\n")
	if n < 1 || n > len(lines) {
		return "", false
	}
	return strings.TrimRight(lines[n-1], "\r"), true
}

// caretWindow is how many characters of a long line are shown around
// the column.
const caretWindow = 60

// caretLines renders "LINE n: text" and a caret under column col (from 1,
// in characters). A tab before the column is kept as a tab so the caret
// lines up however the terminal sets its tab stops; a line longer than
// twice caretWindow is cut to a window around the column, marked "...".
func caretLines(n int, line string, col int) string {
	r := []rune(line)
	col = min(max(col, 1), len(r)+1)
	lo, hi := 0, len(r)
	prefix := fmt.Sprintf("LINE %d: ", n)
	head, tail := "", ""
	if len(r) > 2*caretWindow {
		lo, hi = max(col-1-caretWindow, 0), min(col-1+caretWindow, len(r))
		if lo > 0 {
			head = "..."
		}
		if hi < len(r) {
			tail = "..."
		}
	}
	var pad strings.Builder
	pad.WriteString(strings.Repeat(" ", len(prefix)+len(head)))
	for _, c := range r[lo : col-1] {
		if c == '\t' {
			pad.WriteRune('\t')
		} else {
			pad.WriteRune(' ')
		}
	}
	return prefix + head + string(r[lo:hi]) + tail + "\n" + pad.String() + "^"
}
