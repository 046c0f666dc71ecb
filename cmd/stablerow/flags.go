package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// newFlags returns the flag set of subcommand name; synopsis is its usage
// line, printed above the flags by -h/-help/--help.
func newFlags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: stablerow %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses a subcommand's arguments. Asked for help, it prints
// the usage on standard output and returns a usageError wrapping
// flag.ErrHelp (exit status 0); a bad flag is a usageError naming the
// flag (exit status 2), with a pointer to the help instead of the whole
// flag list. The flag package's own printing is silenced so each message
// is printed once, by report.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(os.Stdout)
		fs.Usage()
		return usageError{err}
	}
	if err != nil {
		return usageError{fmt.Errorf("%s: %w (stablerow %s -help lists the flags)", fs.Name(), err, fs.Name())}
	}
	return nil
}
