package engine

import (
	"fmt"
	"sync"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/plan/sql"
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
	case "":
		if s.Reset { // RESET ALL
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
