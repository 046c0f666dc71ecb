package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/stablerow/stablerow/engine"
)

// sqlOptions are how statements run and print.
type sqlOptions struct {
	plan    bool   // print the plan that ran, with metrics
	maxRows int    // rows printed per result (0: all)
	format  string // "table" (or ""), "csv" or "json"
	// status receives what is not result rows (row counts, the cut, time,
	// plans, what a statement did); nil: the result's own writer. csv and
	// json send it to standard error, so their output is data only.
	status io.Writer
	// results receives the result rows at the interactive prompt (-o
	// FILE), while the prompt and its errors stay on the terminal; nil:
	// the prompt's writer.
	results io.Writer
	noTime  bool // no "time:" line after each statement (\timing off)
	// progress receives a long statement's progress line (standard error
	// when it is a terminal); nil: none.
	progress io.Writer
	db       engine.Options // -memory-limit, -spill-dir
}

func (o sqlOptions) statusTo(w io.Writer) io.Writer {
	if o.status != nil {
		return o.status
	}
	return w
}

// outputFlags registers -format, -o and -max-rows on fs; after parsing,
// the returned function applies them to opt and returns where results go
// and how to close it (-o FILE; standard output otherwise).
func outputFlags(fs *flag.FlagSet, opt *sqlOptions) func() (io.Writer, func() error, error) {
	fs.StringVar(&opt.format, "format", "table", "output format: table (aligned text), csv (a header line, NULL as an empty field), json (an object per row and line, NULL as null) or arrow (an Arrow IPC stream per result, to -o FILE or a pipe)")
	file := fs.String("o", "", "write results to this file instead of standard output (created or truncated)")
	fs.IntVar(&opt.maxRows, "max-rows", -1, "rows printed per result; the rest are counted (0: all; default 50 for -format table, all for csv, json and arrow)")
	return func() (io.Writer, func() error, error) {
		if !slices.Contains(formats, opt.format) {
			return nil, nil, usageError{fmt.Errorf("%w: -format %q (want one of %v)", errFormat, opt.format, formats)}
		}
		if opt.maxRows < 0 {
			opt.maxRows = 0
			if opt.format == "table" {
				opt.maxRows = 50
			}
		}
		if opt.format != "table" {
			opt.status = os.Stderr
		}
		if *file == "" {
			if opt.format == "arrow" && isTerminal(os.Stdout) {
				return nil, nil, usageError{fmt.Errorf("%w, and standard output is a terminal: give -o FILE or redirect standard output", errArrowOutput)}
			}
			return os.Stdout, func() error { return nil }, nil
		}
		f, err := os.Create(*file)
		if err != nil {
			return nil, nil, err
		}
		return f, f.Close, nil
	}
}

func runSQL(ctx context.Context, args []string) error {
	fs := newFlags("sql", "sql [-d DIR] [-e SQL] [flags]: run SQL; without -e an interactive prompt")
	dir := fs.String("d", ".stablerow", "database directory")
	expr := fs.String("e", "", "statements to run, ';'-separated, or one backslash command such as '\\d t' (default: interactive prompt on stdin)")
	noIdx := fs.Bool("no-index", false, "plan without indexes")
	create := fs.Bool("create", false, "create the database directory if it does not exist (without it a missing -d is an error)")
	var opt sqlOptions
	fs.BoolVar(&opt.plan, "plan", false, "print the plan that ran, with metrics")
	output := outputFlags(fs, &opt)
	memory := resourceFlags(fs)
	debugFlag(fs)
	params := paramFlags{}
	fs.Var(params, "p", "bind a parameter: -p x=7 (text the statement types, as PostgreSQL's unknown literal), -p ids=1,2,3 or -p ids=@FILE (a list of integers) (repeatable)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := memory(&opt.db); err != nil {
		return err
	}
	softLimitGC(opt.db.MemoryLimit)
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("sql: unexpected argument %q (statements go in -e or on standard input)", fs.Arg(0))}
	}
	if !fullBuild && *expr == "" && isTerminal(os.Stdin) && isTerminal(os.Stdout) {
		// The line editor is in the full build (lean.go). Without it
		// (a go install of this command alone) the prompt still works,
		// as a plain one: a newcomer's first session must not fail.
		if _, err := fullPath(); err == nil {
			return execFull(os.Args[1:])
		}
		fmt.Fprintf(os.Stderr, "(a plain prompt, no line editing or history: %s is not beside this binary or on PATH; make install builds both)\n", fullName)
	}
	out, closeOut, err := output()
	if err != nil {
		return err
	}
	if isTerminal(os.Stderr) {
		opt.progress = os.Stderr
	}
	err = runSQLOn(ctx, *dir, *create, *noIdx, *expr, params, opt, out)
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}

func runSQLOn(ctx context.Context, dir string, create, noIdx bool, expr string, params paramFlags, opt sqlOptions, out io.Writer) error {
	dbOpt := opt.db
	dbOpt.DisableIndexes, dbOpt.Create = noIdx, create
	db, err := openDB(dir, dbOpt, "sql -create makes one")
	if err != nil {
		return err
	}
	if expr != "" {
		if isBackslash(expr, "") {
			return runBackslash(ctx, db, expr, params, opt, out)
		}
		return runScript(ctx, db, expr, params, opt, out)
	}
	if out != os.Stdout && opt.status == nil {
		opt.status = out // -o FILE: the whole table output goes there
	}
	opt.results = out
	interactive := isTerminal(os.Stdin)
	if interactive && opt.format == "arrow" && out == os.Stdout {
		return usageError{fmt.Errorf("%w: at the prompt give -o FILE (the prompt would be written into the stream)", errArrowOutput)}
	}
	var lr lineReader
	switch {
	case interactive && isTerminal(os.Stdout):
		lr = newLinerReader()
	case interactive:
		lr = newPlainReader(os.Stdin, os.Stdout, true)
	default:
		in, done, err := checkPiped(ctx, os.Stdin)
		if err != nil {
			return err
		}
		defer done()
		lr = newPlainReader(in, os.Stdout, false)
	}
	return prompt(ctx, db, params, opt, lr, os.Stdout, interactive)
}

// checkPiped reads a script piped in (or redirected from a file) twice:
// once to parse every statement, the way the prompt will cut it, and
// only if all parse, again to run them (as -e does; a syntax error in
// statement 5 must not come after statements 1–4 have committed). A pipe
// is copied to a temporary file as it is read, so memory stays bounded
// whatever the script's size; a regular file is read again from its
// start. It returns the input to run and the function that removes the
// copy.
func checkPiped(ctx context.Context, in *os.File) (io.Reader, func(), error) {
	src, done := io.Reader(in), func() {}
	var spool *os.File
	if fi, err := in.Stat(); err != nil || !fi.Mode().IsRegular() {
		f, err := os.CreateTemp("", "stablerow-script-*.sql")
		if err != nil {
			return nil, nil, fmt.Errorf("keeping the piped script to check it first: %w", err)
		}
		spool, done = f, func() { f.Close(); os.Remove(f.Name()) }
		src = io.TeeReader(in, f)
	}
	s := &session{in: newPlainReader(src, io.Discard, false), w: io.Discard, checkOnly: true}
	if err := s.loop(ctx); err != nil {
		done()
		return nil, nil, err
	}
	if spool == nil {
		if _, err := in.Seek(0, io.SeekStart); err != nil {
			return nil, nil, err
		}
		return in, done, nil
	}
	// \q may have stopped the check early: the rest is never run, but the
	// copy must hold all of it for the lines to match.
	if _, err := io.Copy(io.Discard, src); err != nil {
		done()
		return nil, nil, err
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		done()
		return nil, nil, err
	}
	return spool, done, nil
}

// execPrint runs the statements of text in order and prints each result
// (at most 50 rows of each).
func execPrint(ctx context.Context, db *engine.DB, text string, params map[string]any, plan bool, w io.Writer) error {
	return runScript(ctx, db, text, params, sqlOptions{plan: plan, maxRows: 50}, w)
}

// runScript runs the statements of script in order, printing each result
// as it streams, and stops at the first error, which it returns placed by
// statement and line when the script holds more than one.
//
// The script is one session (engine.Session): BEGIN ... COMMIT in it is a
// transaction, and one still open at the end, or when an error ends the
// script, is rolled back (endSession says so).
func runScript(ctx context.Context, db *engine.DB, script string, params map[string]any, opt sqlOptions, w io.Writer) error {
	stmts, rest := engine.SplitStatements(script)
	if rest.Text != "" {
		stmts = append(stmts, rest)
	}
	if err := engine.CheckSyntax(stmts); err != nil {
		return inScript(script, 0, err) // nothing has run
	}
	sess := db.NewSession()
	defer endSession(sess, opt.statusTo(w))
	for i, st := range stmts {
		if err := runStatement(ctx, sess, st, params, opt, w); err != nil {
			if len(stmts) > 1 {
				err = st.Err(i, err)
			}
			return inScript(script, 0, err)
		}
	}
	return nil
}

// runStatement runs one statement and prints its result as it streams.
func runStatement(ctx context.Context, sess *engine.Session, st engine.Statement, params map[string]any, opt sqlOptions, w io.Writer) error {
	start := time.Now()
	ctx, prog := startProgress(ctx, opt.progress)
	defer prog.Stop()
	rows, err := sess.QueryStatement(ctx, st, params)
	if err != nil {
		return err
	}
	defer rows.Close()
	if opt.results != nil {
		w = opt.results
	}
	status := opt.statusTo(w)
	if prog != nil {
		w, status = stopOnWrite{w, prog}, stopOnWrite{status, prog}
	}
	if err := printRows(w, rows, opt); err != nil {
		return err
	}
	if opt.plan && rows.Plan() != "" {
		fmt.Fprint(status, rows.Plan())
	}
	if !opt.noTime {
		fmt.Fprintf(status, "time: %s\n", time.Since(start).Round(time.Microsecond))
	}
	return nil
}

// endSession closes a CLI run's session. A transaction still open is
// rolled back, as psql's session end does; unlike psql it is said, so a
// script that forgot its COMMIT does not look as if it had written.
func endSession(sess *engine.Session, status io.Writer) {
	if sess.Status() != engine.TxIdle {
		fmt.Fprintln(status, "stablerow: the open transaction was rolled back (no COMMIT before the end)")
	}
	sess.Close()
}

// isTerminal reports whether f is a character device (a terminal), where
// the prompt is shown and errors do not end the session.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
