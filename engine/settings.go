package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/sql"
)

// ErrUnknownSetting: SET of a name the engine does not have (PostgreSQL's
// "unrecognized configuration parameter").
var ErrUnknownSetting = errkind.New(errkind.NotFound, "engine: unrecognized configuration parameter")

// ErrSettingCeiling: SET memory_limit above the limit the DB was opened
// with (Options.MemoryLimit, the CLI's -memory-limit, the server's
// setting): a client cannot lift the operator's bound.
var ErrSettingCeiling = errkind.New(errkind.InvalidArgument, "engine: setting above the server's limit")

// settings are what SET changes. They belong to the DB handle: the CLI's
// session, or, in the Flight SQL server, every client of the database
// (which is why Options.MemoryLimit is a ceiling SET cannot pass).
type settings struct {
	mu          sync.Mutex
	memoryLimit int64 // bytes, 0 for none
	set         bool  // memoryLimit was SET (else Options.MemoryLimit)
	threads     int   // SET threads; 0: Options.Threads
}

// MaxThreads bounds SET threads: each partition of a scan is a goroutine
// and a channel per operator, so a typo like 1000000 must not start a
// million of them.
const MaxThreads = 1024

// ErrBadThreads: SET threads to something other than an integer in
// 1..MaxThreads.
var ErrBadThreads = errkind.New(errkind.InvalidArgument, "engine: invalid value for threads")

// Threads is the degree of parallelism of each query: the last SET
// threads, else Options.Threads (0 or less: 1).
func (db *DB) Threads() int {
	db.settings.mu.Lock()
	defer db.settings.mu.Unlock()
	if db.settings.threads > 0 {
		return db.settings.threads
	}
	return min(max(db.opt.Threads, 1), MaxThreads)
}

// SetThreads is SET threads = n: queries planned from now on run on n
// partitions (1: the serial plan).
func (db *DB) SetThreads(n int) error {
	if n < 1 || n > MaxThreads {
		return fmt.Errorf("%w: %d (want 1 to %d)", ErrBadThreads, n, MaxThreads)
	}
	db.settings.mu.Lock()
	defer db.settings.mu.Unlock()
	db.settings.threads = n
	return nil
}

// MemoryLimit is the memory limit of each statement in bytes (0: none):
// the last SET memory_limit, else Options.MemoryLimit.
func (db *DB) MemoryLimit() int64 {
	db.settings.mu.Lock()
	defer db.settings.mu.Unlock()
	if db.settings.set {
		return db.settings.memoryLimit
	}
	return max(db.opt.MemoryLimit, 0)
}

// SetMemoryLimit is SET memory_limit: n bytes per statement, 0 for the
// default (Options.MemoryLimit). With Options.MemoryLimit set, n may not
// exceed it (ErrSettingCeiling).
func (db *DB) SetMemoryLimit(n int64) error {
	ceiling := db.opt.MemoryLimit
	if n < 0 {
		return fmt.Errorf("%w: memory_limit %d", memlimit.ErrBadSize, n)
	}
	if ceiling > 0 && (n == 0 || n > ceiling) {
		return fmt.Errorf("%w: memory_limit %s is over the limit of %s", ErrSettingCeiling, memlimitText(n), memlimit.FormatSize(ceiling))
	}
	db.settings.mu.Lock()
	defer db.settings.mu.Unlock()
	db.settings.memoryLimit, db.settings.set = n, n != 0
	return nil
}

func memlimitText(n int64) string {
	if n == 0 {
		return "unlimited"
	}
	return memlimit.FormatSize(n)
}

// set runs a SET or RESET statement.
func (db *DB) set(s *sql.Set) error {
	switch s.Name {
	case "memory_limit":
		if s.Reset {
			db.settings.mu.Lock()
			db.settings.memoryLimit, db.settings.set = 0, false
			db.settings.mu.Unlock()
			return nil
		}
		n, err := memlimit.ParseSize(s.Value)
		if err != nil {
			return fmt.Errorf("memory_limit: %w", err)
		}
		if n == 0 && db.opt.MemoryLimit > 0 {
			return fmt.Errorf("%w: memory_limit unlimited (the limit is %s)", ErrSettingCeiling, memlimit.FormatSize(db.opt.MemoryLimit))
		}
		return db.SetMemoryLimit(n)
	case "threads":
		if s.Reset {
			db.settings.mu.Lock()
			db.settings.threads = 0
			db.settings.mu.Unlock()
			return nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(s.Value))
		if err != nil {
			return fmt.Errorf("%w: %q is not an integer", ErrBadThreads, s.Value)
		}
		return db.SetThreads(n)
	case "":
		if s.Reset { // RESET ALL
			if err := db.set(&sql.Set{Name: "threads", Reset: true}); err != nil {
				return err
			}
			return db.set(&sql.Set{Name: "memory_limit", Reset: true})
		}
	}
	return fmt.Errorf("%w: %q", ErrUnknownSetting, s.Name)
}

// newPool is one statement's memory pool (nil: no limit).
func (db *DB) newPool() *memlimit.Pool {
	if n := db.MemoryLimit(); n > 0 {
		return memlimit.NewPool(n)
	}
	return nil
}

// serialKey marks a context whose queries are planned serially.
type serialKey struct{}

// serialPlan marks the source query of a write (INSERT ... SELECT, CREATE
// TABLE AS, UPDATE) to be planned at threads = 1: its row order decides
// the new rows' ids and addresses, which must not depend on how the
// partitions of a parallel plan happened to interleave.
func serialPlan(ctx context.Context) context.Context {
	return context.WithValue(ctx, serialKey{}, true)
}

// writeSource reports the source query of a write (serialPlan's mark):
// its rows keep character(n) in the engine's form, the table's, rather
// than blank-padded as a result shows them (plan.Options.WriteSource).
func writeSource(ctx context.Context) bool { return ctx.Value(serialKey{}) != nil }

// planThreads is the degree of parallelism to plan a query of ctx with.
func (db *DB) planThreads(ctx context.Context) int {
	if ctx.Value(serialKey{}) != nil {
		return 1
	}
	return db.Threads()
}
