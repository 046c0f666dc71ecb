package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	rdebug "runtime/debug"

	"github.com/stablerow/stablerow/cmd/stablerow/internal/gcstart"
	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/memlimit"
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

// resourceFlags registers the statement resource flags -memory-limit,
// -spill-dir and -threads; the function it returns, called after parsing,
// sets them in opt (a size ParseSize cannot read, or a thread count out of
// 1..engine.MaxThreads, is a usage error).
func resourceFlags(fs *flag.FlagSet) func(opt *engine.Options) error {
	limit := fs.String("memory-limit", "", "bound each statement's memory, e.g. 256MB or 1GB (units B, kB, MB, GB, TB): sorts spill to -spill-dir past it, hash joins and aggregations fail; SET memory_limit may lower it, not raise it (default: no limit)")
	dir := fs.String("spill-dir", "", "directory for sort spill files (default: the system temporary directory)")
	threads := fs.Int("threads", runtime.NumCPU(), "partitions each query runs on in parallel (scans split their fragments; SET threads changes it; 1: serial)")
	return func(opt *engine.Options) error {
		n, err := memlimit.ParseSize(*limit)
		if err != nil {
			return usageError{fmt.Errorf("-memory-limit: %w", err)}
		}
		if *threads < 1 || *threads > engine.MaxThreads {
			return usageError{fmt.Errorf("-threads: %d is not in 1..%d", *threads, engine.MaxThreads)}
		}
		opt.MemoryLimit, opt.SpillDir, opt.Threads = n, *dir, *threads
		return nil
	}
}

// softLimitGC tells Go's garbage collector about a statement memory limit
// of n bytes (the sql command runs one statement at a time): the pool
// bounds what operators hold, but memory they released is returned only
// when the collector runs, and by default it lets the heap double first.
// A soft limit of twice n keeps the process near the budget. GOMEMLIMIT,
// when set, wins.
func softLimitGC(n int64) {
	if n > 0 && os.Getenv("GOMEMLIMIT") == "" {
		gcstart.Restore() // else its restore, at the first collection, undoes this
		rdebug.SetMemoryLimit(2 * n)
	}
}
