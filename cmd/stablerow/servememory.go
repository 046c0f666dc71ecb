//go:build stablerow_full

package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"runtime"
	rdebug "runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/stablerow/stablerow/cmd/stablerow/internal/gcstart"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/server"
)

// serveMemoryFlags registers serve's server-wide memory flags
// (-server-memory, -admission-timeout, -heavy-statements), -prepared-ttl,
// -transaction-ttl
// and -light-priority (the CPU's counterpart of the admission of heavy
// statements: package priority); the function it
// returns, called after parsing, sets them in opt and gives Go's garbage
// collector the budget as its soft limit (unless GOMEMLIMIT is set), so
// memory the operators released goes back before the heap doubles.
func serveMemoryFlags(fs *flag.FlagSet) func(opt *server.Options) error {
	size := fs.String("server-memory", "50%", "the server's one memory budget, shared by every statement and parameter upload: a size (e.g. 8GB) or a percentage of physical memory (or of the cgroup's limit, if lower); a statement that cannot get its minimum waits, then fails with RESOURCE_EXHAUSTED; unlimited: no budget")
	wait := fs.Duration("admission-timeout", 30*time.Second, "how long a statement waits for its share of -server-memory before it fails with RESOURCE_EXHAUSTED (0: it does not wait)")
	heavy := fs.Int("heavy-statements", 0, "the most statements that sort, aggregate or join run at once under -server-memory; the others wait for admission (0: 2 a core)")
	prepTTL := fs.Duration("prepared-ttl", time.Hour, "drop a prepared statement (and the parameters bound to it) unused for this long")
	txnTTL := fs.Duration("transaction-ttl", 10*time.Minute, "roll back a transaction (Flight SQL BeginTransaction) idle for this long")
	lightFirst := fs.Bool("light-priority", true, "statements that sort, aggregate or join park between batches while other calls run, so a short query does not wait for the cores behind them (false: they share the cores)")
	running := fs.Int("heavy-running", 0, "with -light-priority, the most goroutines of statements that sort, aggregate or join that run at once (0: one a core; -1: no bound)")
	lightProcs := fs.Int("light-procs", 2, "with -light-priority, Go processors beyond the cores (GOMAXPROCS), idle for short queries while -heavy-running goroutines run (0: GOMAXPROCS stays; ignored when $GOMAXPROCS is set)")
	return func(opt *server.Options) error {
		n, err := serverMemory(*size)
		if err != nil {
			return usageError{fmt.Errorf("-server-memory: %w", err)}
		}
		if *heavy < 0 {
			return usageError{fmt.Errorf("-heavy-statements %d must not be negative", *heavy)}
		}
		opt.HeavyStatements = *heavy
		opt.NoPriority = !*lightFirst
		if *running < -1 || *lightProcs < 0 {
			return usageError{fmt.Errorf("-heavy-running %d must be -1 or more and -light-procs %d not negative", *running, *lightProcs)}
		}
		opt.HeavyRunning, opt.Cores = *running, runtime.GOMAXPROCS(0)
		if *lightFirst && *lightProcs > 0 && os.Getenv("GOMAXPROCS") == "" {
			runtime.GOMAXPROCS(opt.Cores + *lightProcs)
		}
		if *wait < 0 || *prepTTL <= 0 || *txnTTL <= 0 {
			return usageError{fmt.Errorf("-admission-timeout %s must not be negative, -prepared-ttl %s and -transaction-ttl %s must be positive", *wait, *prepTTL, *txnTTL)}
		}
		opt.Memory, opt.AdmissionWait, opt.PreparedTTL, opt.TransactionTTL = n, *wait, *prepTTL, *txnTTL
		if *wait == 0 {
			opt.AdmissionWait = -1 // server.Options: negative is no waiting
		}
		if n > 0 && os.Getenv("GOMEMLIMIT") == "" {
			gcstart.Restore() // else its restore, at the first collection, undoes this
			rdebug.SetMemoryLimit(n)
		}
		return nil
	}
}

// serverMemory reads -server-memory: a size (memlimit.ParseSize,
// "unlimited" for none) or N% of physicalMemory.
func serverMemory(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if pct, ok := strings.CutSuffix(t, "%"); ok {
		p, err := strconv.Atoi(strings.TrimSpace(pct))
		if err != nil || p < 1 || p > 100 {
			return 0, fmt.Errorf("%w: %q (a percentage is 1%% to 100%%)", memlimit.ErrBadSize, s)
		}
		total, err := physicalMemory()
		if err != nil {
			return 0, fmt.Errorf("%q: %w (give a size instead)", s, err)
		}
		return total / 100 * int64(p), nil
	}
	return memlimit.ParseSize(t)
}

// physicalMemory is the memory this process may use: /proc/meminfo's
// MemTotal, or the cgroup's limit when lower (cgroup v2 memory.max, v1
// memory.limit_in_bytes).
func physicalMemory() (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var total int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/meminfo: MemTotal %q", rest)
			}
			total = kb << 10
			break
		}
	}
	if total <= 0 {
		return 0, fmt.Errorf("/proc/meminfo has no MemTotal")
	}
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && n < total {
			total = n // "max" (v2) or a huge number (v1) is no limit
		}
	}
	return total, nil
}
