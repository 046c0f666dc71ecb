package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	// Side effects at package initialization, before the heavy
	// dependencies' (each package's doc says why there): no collection
	// until 32 MB, then the usual pacing; and, for sql and substrait, the
	// parser's and Substrait's protobuf tables readied on a second goroutine.
	_ "github.com/stablerow/stablerow/cmd/stablerow/internal/gcstart"
	_ "github.com/stablerow/stablerow/cmd/stablerow/internal/warm"
	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/internal/suggest"
	"github.com/stablerow/stablerow/sql"
)

// commands are the subcommands, in the order a suggestion prefers them.
var commands = []string{"sql", "demo", "substrait", "inspect", "vacuum", "serve", "version", "help"}

func usage(w io.Writer) {
	fmt.Fprintln(w, `usage:
  stablerow demo [-d DIR] [-rows N] [-ids N]        the take-by-row-id job on a local table
  stablerow sql [-d DIR] [-create] [-e SQL] [-p x=VALUE|ids=1,2,3|ids=@FILE] [-plan] [-no-index]
                [-format table|csv|json|arrow] [-o FILE] [-max-rows N] [-debug]
                                                    run SQL; without -e an interactive prompt;
                                                    -create makes a database that does not exist
  stablerow substrait [-d DIR] -f PLAN [-p 1=5,3,9]  run a Substrait plan (protobuf JSON or binary)
  stablerow substrait [-d DIR] -emit 'SELECT ...'    print the Substrait JSON plan SQL lowers to
  stablerow inspect [-segments] PATH                a table or database directory (manifest,
                                                    fragments, row id segments, deletions,
                                                    indexes, versions) or a .rowmap file
  stablerow vacuum [-d DIR] [-table t] [-grace 1h] [-dry-run]
                                                    remove files no version references
  stablerow version                                 the build: version, revision, Go, platform
  stablerow serve [-d DIR] [-addr 127.0.0.1:31337] [-user NAME] [-tokens FILE]
                [-tls-cert FILE -tls-key FILE]      serve Arrow Flight SQL (password in
                                                    $STABLEROW_PASSWORD; beyond localhost
                                                    -user or -tokens is required)

stablerow COMMAND -help describes the flags of a command.`)
}

// debug prints the details of internal errors (set by STABLEROW_DEBUG=1 or
// a subcommand's -debug flag).
var debug = os.Getenv("STABLEROW_DEBUG") != "" && os.Getenv("STABLEROW_DEBUG") != "0"

func debugFlag(fs *flag.FlagSet) {
	fs.BoolVar(&debug, "debug", debug, "print the details of internal errors (also STABLEROW_DEBUG=1)")
}

// usageError is a bad command line (exit status 2), or a request for help
// (wrapping flag.ErrHelp: the usage is printed, exit status 0).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func main() {
	if len(os.Args) < 2 {
		usage(os.Stderr)
		os.Exit(2)
	}
	ctx := context.Background()
	if !fullBuild && needsFull(os.Args[1:]) {
		os.Exit(report(os.Stderr, execFull(os.Args[1:]))) // returns only on failure
	}
	var err error
	switch os.Args[1] {
	case "demo":
		err = runDemo(ctx, os.Args[2:])
	case "sql":
		go func() { _ = sql.Warm() }() // the extension collection, while flags parse and the database opens; its error is the statement's to report
		err = runSQL(ctx, os.Args[2:])
	case "substrait":
		go func() { _ = sql.Warm() }()
		err = runSubstrait(ctx, os.Args[2:])
	case "inspect":
		err = runInspect(ctx, os.Args[2:])
	case "vacuum":
		err = runVacuum(ctx, os.Args[2:])
	case "serve":
		err = runServe(ctx, os.Args[2:])
	case "version", "-version", "--version", "-V":
		printVersion(os.Stdout)
		return
	case "-h", "-help", "--help", "help":
		usage(os.Stdout)
		return
	default:
		fmt.Fprintf(os.Stderr, "stablerow: unknown command %q%s\n", os.Args[1], suggest.Hint(os.Args[1], commands))
		usage(os.Stderr)
		os.Exit(2)
	}
	if err != nil {
		os.Exit(report(os.Stderr, err))
	}
}

// report prints err for a user and returns the exit status it maps to.
func report(w io.Writer, err error) int {
	var ue usageError
	if errors.As(err, &ue) {
		if errors.Is(err, flag.ErrHelp) {
			return 0 // the usage asked for is printed
		}
		fmt.Fprintln(w, "stablerow:", err)
		return 2
	}
	switch errkind.Of(err) {
	case errkind.Corrupt:
		fmt.Fprintln(w, "stablerow: corrupt data:", err)
		return 3
	case errkind.Conflict:
		fmt.Fprintln(w, "stablerow: conflict, a concurrent commit won (retry):", err)
		return 4
	case errkind.Unavailable:
		// EX_IOERR of sysexits.h: the store could not be reached or kept
		// failing; the input and the data are fine, a later run may work.
		fmt.Fprintln(w, "stablerow: I/O error:", err)
		return 74
	case errkind.Internal:
		fmt.Fprintln(w, "stablerow:", err)
		var ie *engine.InternalError
		switch {
		case !debug:
			fmt.Fprintln(w, "stablerow: run with -debug or STABLEROW_DEBUG=1 for the details to report")
		case errors.As(err, &ie):
			fmt.Fprintln(w, ie.Debug())
		default:
			fmt.Fprintf(w, "%+v\n", err)
		}
		return 70
	}
	fmt.Fprintln(w, "stablerow:", errorText(err))
	return 1
}
