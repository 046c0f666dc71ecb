package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
)

// errBackslash: a backslash command the prompt does not know, or bad
// arguments to one.
var errBackslash = errkind.New(errkind.InvalidArgument, "backslash command")

// promptHelp is what \? prints.
const promptHelp = `Statements end with ';' (not one inside a string, a quoted name or a comment)
and may span lines; Ctrl-C cancels a running statement or drops the one being
typed; Ctrl-D, \q, quit or exit ends the session.

  \?            this help
  \d            list tables (version, live rows, fragments, indexes)
  \d NAME       describe table NAME: columns, indexes, versions
  \timing [on|off]  print each statement's time (on at start; alone it toggles)
  \p            print the statement being typed
  \r            drop the statement being typed
  \g            run the statement being typed (or the last one again)
  \q            quit

Backslash commands may be typed in the middle of a statement, on a line of
their own: the statement being typed is kept (but for \r and \g).

Line editing: arrows, Ctrl-A/E, Ctrl-R searches the history (kept in
$STABLEROW_HISTORY, default stablerow/history in the user's cache directory).
`

// backslash runs a backslash command (or quit/exit); quit reports whether
// the session ends.
func (s *session) backslash(ctx context.Context, line string) (quit bool, err error) {
	if isQuit(line) {
		return true, nil
	}
	f := strings.Fields(line)
	cmd, args := f[0], f[1:]
	if s.checkOnly {
		switch cmd {
		case `\d`, `\dt`, `\timing`, `\p`, `\?`, `\h`, `\help`:
			return false, nil // they change nothing of what runs
		}
	}
	switch cmd {
	case `\q`:
		return true, nil
	case `\p`:
		if strings.TrimSpace(s.buf) == "" {
			fmt.Fprintln(s.w, "query buffer is empty")
		} else {
			fmt.Fprint(s.w, s.buf)
		}
		return false, nil
	case `\r`:
		s.buf = ""
		fmt.Fprintln(s.w, "query buffer reset (cleared)")
		return false, nil
	case `\g`:
		text := s.buf
		if strings.TrimSpace(text) == "" {
			text = s.last
		}
		if strings.TrimSpace(text) == "" {
			return false, fmt.Errorf(`%w: \g: no statement typed and none run before`, errBackslash)
		}
		s.buf = ""
		stmts, rest := engine.SplitStatements(text)
		if strings.TrimSpace(rest.Text) != "" {
			stmts = append(stmts, rest)
		}
		return false, s.runAll(ctx, stmts, text, s.bufLine)
	case `\?`, `\h`, `\help`:
		fmt.Fprint(s.w, promptHelp)
		return false, nil
	case `\timing`:
		switch {
		case len(args) == 0:
			s.opt.noTime = !s.opt.noTime
		case len(args) == 1 && args[0] == "on":
			s.opt.noTime = false
		case len(args) == 1 && args[0] == "off":
			s.opt.noTime = true
		default:
			return false, fmt.Errorf(`%w: \timing takes on or off, got %q`, errBackslash, strings.Join(args, " "))
		}
		state := "on"
		if s.opt.noTime {
			state = "off"
		}
		fmt.Fprintf(s.w, "timing is %s\n", state)
		return false, nil
	case `\d`, `\dt`:
		switch len(args) {
		case 0:
			return false, listTables(ctx, s.w, s.db)
		case 1:
			return false, describeTable(ctx, s.w, s.db, args[0])
		}
		return false, fmt.Errorf(`%w: \d takes at most one table name, got %q`, errBackslash, strings.Join(args, " "))
	}
	return false, fmt.Errorf(`%w: unknown command %s (\? lists the commands)`, errBackslash, cmd)
}

// runBackslash is -e '\d' (or any backslash command): as psql -c, an -e
// text that starts with a backslash is one backslash command, run as the
// prompt runs it, so \d and \d t work outside the prompt too (a piped
// script already reads them line by line).
func runBackslash(ctx context.Context, db *engine.DB, line string, params map[string]any, opt sqlOptions, w io.Writer) error {
	s := &session{db: db, sess: db.NewSession(), params: params, opt: opt, w: w}
	defer endSession(s.sess, opt.statusTo(w))
	_, err := s.backslash(ctx, strings.TrimSpace(line))
	return err
}
