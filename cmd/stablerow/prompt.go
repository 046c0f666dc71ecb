package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/stablerow/stablerow/engine"
)

const (
	promptFirst  = "stablerow> "  // a new statement
	promptMore   = "       ...> " // the statement goes on (no ';' outside a literal or comment yet)
	promptInTxn  = "stablerow*> " // a new statement inside a transaction block (psql's =*>)
	promptFailed = "stablerow!> " // inside a failed transaction block, until ROLLBACK (psql's =!>)
)

// session is the state of one interactive prompt:
//
//	          line without a ';' that ends a statement
//	         +------------------+
//	         v                  |
//	     reading ---------------+         Ctrl-C: the text typed so far is dropped,
//	     |  ^   \                          back to reading
//	 ';' |  |    \ line starting with '\' (not inside an open literal
//	 \g  |  |     \  or comment of the text pending)
//	     v  |      v
//	   running    backslash command (\? \d \timing \p \r \g \q); the text
//	              pending stays pending, except that \r drops it and \g
//	              runs it
//	 (Ctrl-C cancels the statement's context; its Rows stop and release,
//	  the session goes back to reading)
//
//	reading --Ctrl-D, \q or end of input--> done (exit 0)
//
// Ctrl-D with a statement half typed discards it, as psql does: a DELETE
// whose WHERE was not typed yet must not run. On a script piped in
// (interactive false) the first error ends the run and is returned, like
// -e; a last statement without ';' still runs at the end (psql too).
type session struct {
	db          *engine.DB
	sess        *engine.Session // the engine session: its open transaction, if any
	params      map[string]any
	opt         sqlOptions
	in          lineReader
	w           io.Writer
	interactive bool
	buf         string // text of the statement(s) not complete yet
	last        string // the statement run last, for \g with nothing pending
	// checkOnly: parse the statements, run nothing (a piped script is
	// read twice, checked whole before its first statement runs).
	checkOnly bool
	lineNo    int // lines read so far
	bufLine   int // lines read before buf's first line

	mu     sync.Mutex
	cancel context.CancelFunc // of the running statement; nil while reading
}

// prompt runs the statements read from in until its end, \q or Ctrl-D.
func prompt(ctx context.Context, db *engine.DB, params map[string]any, opt sqlOptions, in lineReader, w io.Writer, interactive bool) error {
	s := &session{db: db, sess: db.NewSession(), params: params, opt: opt, in: in, w: w, interactive: interactive}
	defer in.close()
	defer endSession(s.sess, opt.statusTo(w))
	if interactive {
		stop := s.catchInterrupts()
		defer stop()
		fmt.Fprintln(w, `stablerow: statements end with ';'. \? for help, \q or Ctrl-D to quit.`)
	}
	return s.loop(ctx)
}

func (s *session) loop(ctx context.Context) error {
	for {
		ps := s.promptText()
		line, err := s.in.readLine(ps)
		switch {
		case errors.Is(err, errInputCanceled):
			s.buf = "" // Ctrl-C while typing: drop the statement, keep the session
			continue
		case errors.Is(err, io.EOF):
			if s.interactive {
				fmt.Fprintln(s.w)
				if strings.TrimSpace(s.buf) != "" {
					fmt.Fprintln(s.w, "stablerow: the unfinished statement was discarded, not run")
				}
				return nil
			}
			return s.finish(ctx)
		case err != nil:
			return err
		}
		s.lineNo++
		s.in.remember(line)
		if isBackslash(line, s.buf) || s.buf == "" && isQuit(line) {
			quit, err := s.backslash(ctx, strings.TrimSpace(line))
			if err != nil {
				if !s.interactive {
					return err
				}
				fmt.Fprintln(s.w, "error:", errorText(err))
			}
			if quit {
				return nil
			}
			continue
		}
		if strings.TrimSpace(s.buf) == "" {
			s.bufLine = s.lineNo - 1
		}
		s.buf += line + "\n"
		if !strings.Contains(line, ";") {
			continue // only a ';' can end a statement
		}
		text, first := s.buf, s.bufLine
		stmts, rest := engine.SplitStatements(text)
		s.buf = rest.Text
		s.bufLine = s.lineNo - 1 // what is left began on this line
		if err := s.runAll(ctx, stmts, text, first); err != nil {
			return err
		}
	}
}

// promptText is the prompt for the next line: psql's marks of an open
// (*) or failed (!) transaction block on a new statement.
func (s *session) promptText() string {
	switch {
	case s.buf != "":
		return promptMore
	case s.sess == nil:
		return promptFirst
	case s.sess.Status() == engine.TxInBlock:
		return promptInTxn
	case s.sess.Status() == engine.TxInFailed:
		return promptFailed
	}
	return promptFirst
}

// runAll runs statements in order; at the prompt an error is printed and
// the rest are skipped (they follow a failed statement), in a script it
// ends the run.
func (s *session) runAll(ctx context.Context, stmts []engine.Statement, text string, first int) error {
	for _, st := range stmts {
		st = st.Shift(first) // lines of the whole input, not of text
		if err := s.run(ctx, st); err != nil {
			err = inScript(text, first, err)
			if !s.interactive {
				return err
			}
			fmt.Fprintln(s.w, "error:", errorText(err))
			return nil
		}
	}
	return nil
}

// isBackslash reports whether line is a backslash command: it starts with
// '\' and the text pending before it is not inside an open literal or
// comment, where a backslash is text.
func isBackslash(line, pending string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), `\`) && !engine.OpenAtEnd(pending)
}

// isQuit: "quit" and "exit" alone on a line end the session, as in psql.
func isQuit(line string) bool {
	l := strings.TrimSpace(line)
	return l == "quit" || l == "exit"
}

// finish runs a last statement without ';' at the end of the input.
func (s *session) finish(ctx context.Context) error {
	if strings.TrimSpace(s.buf) == "" {
		return nil
	}
	stmts, rest := engine.SplitStatements(s.buf)
	if rest.Text != "" {
		stmts = append(stmts, rest)
	}
	var err error
	if len(stmts) > 0 {
		err = inScript(s.buf, s.bufLine, s.run(ctx, stmts[0].Shift(s.bufLine)))
	}
	if err != nil && s.interactive {
		fmt.Fprintln(s.w, "error:", errorText(err))
		return nil
	}
	return err
}

// errCanceled: a statement stopped by Ctrl-C. A statement that writes
// commits atomically at its end, so a canceled one wrote nothing.
var errCanceled = errors.New("statement canceled by Ctrl-C")

// run runs one statement under a context Ctrl-C cancels.
func (s *session) run(ctx context.Context, st engine.Statement) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	s.last = st.Text
	if s.checkOnly {
		return engine.CheckSyntax([]engine.Statement{st})
	}
	err := runStatement(ctx, s.sess, st, s.params, s.opt, s.w)
	s.mu.Lock()
	s.cancel = nil
	s.mu.Unlock()
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w (%w)", errCanceled, err)
	}
	return err
}

// catchInterrupts turns SIGINT into cancelling the running statement (the
// line editor reads Ctrl-C itself while a line is typed; a terminal it
// cannot drive sends SIGINT then too, which must not end the session).
// It returns the function that stops catching them.
func (s *session) catchInterrupts() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				s.mu.Lock()
				if s.cancel != nil {
					s.cancel()
				}
				s.mu.Unlock()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
