package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" database/sql driver

	"github.com/stablerow/stablerow/bench/tpch"
	"github.com/stablerow/stablerow/engine"
)

const (
	engineSrow = "stablerow"
	engineDuck = "duckdb"
)

// run is what a child reports: the query's wall time (from submitting it
// to reading its last row) and its one answer row as text.
type run struct {
	Wall time.Duration `json:"wall_ns"`
	Row  []string      `json:"row"`
	// HWMKiB is the process's peak resident set (VmHWM), read by the
	// child itself: getrusage's ru_maxrss of a child keeps its parent's
	// peak from before exec (Linux carries it over), so it would show the
	// parent's build, not the query.
	HWMKiB int64 `json:"hwm_kib"`
}

// peakRSS is VmHWM of /proc/self/status in KiB (0 where there is none).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// session is one engine's database, open in this process.
type session interface {
	exec(ctx context.Context, sql string) error
	row(ctx context.Context, sql string) ([]string, error)
	close() error
}

// open opens the engine's database under dir (create: build it when
// missing) with threads and the memory limit (unless "") set.
func open(engineName, dir string, create bool, threads int, mem string) (session, error) {
	var s session
	switch engineName {
	case engineSrow:
		db, err := engine.Open(filepath.Join(dir, "srow"), engine.Options{Create: create})
		if err != nil {
			return nil, err
		}
		s = &srowSession{db: db, gcLimit: true}
	case engineDuck:
		db, err := sql.Open("duckdb", filepath.Join(dir, "duck.db"))
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1) // the SETs below are the connection's
		s = &duckSession{db: db}
	default:
		return nil, fmt.Errorf("unknown engine %q", engineName)
	}
	ctx := context.Background()
	set := []string{fmt.Sprintf("SET threads = %d", threads)}
	if mem != "" { // "": the engine's default (the build)
		set = append(set, fmt.Sprintf("SET memory_limit = '%s'", mem))
	}
	for _, q := range set {
		if err := s.exec(ctx, q); err != nil {
			s.close()
			return nil, fmt.Errorf("%s: %s: %w", engineName, q, err)
		}
	}
	return s, nil
}

// child runs query qi once and writes its run as JSON to w.
func child(engineName, dir string, qi, threads int, mem string, w io.Writer) error {
	s, err := open(engineName, dir, false, threads, mem)
	if err != nil {
		return err
	}
	defer s.close()
	q := queries()[qi]
	if path := os.Getenv("WINDOWBENCH_CPUPROFILE"); path != "" {
		// A profile of the query alone (not the open), for a developer.
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if path := os.Getenv("WINDOWBENCH_HEAPPROFILE"); path != "" {
		h := startHeapPeak() // heapprof.go
		defer func() {
			if err := h.finish(path, os.Stderr); err != nil {
				fmt.Fprintln(os.Stderr, "windowbench child:", err)
			}
		}()
	}
	start := time.Now()
	row, err := s.row(context.Background(), q.sql)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", engineName, q.name, err)
	}
	wall := time.Since(start)
	return json.NewEncoder(w).Encode(run{Wall: wall, Row: row, HWMKiB: peakRSS()})
}

type srowSession struct {
	db      *engine.DB
	gcLimit bool
}

func (s *srowSession) exec(ctx context.Context, q string) error {
	res, err := s.db.Exec(ctx, q, nil)
	if err != nil {
		return err
	}
	res.Release()
	// As the CLI's -memory-limit does (cmd/stablerow/flags.go,
	// softLimitGC): the pool bounds what operators hold; Go's collector,
	// told a soft limit of twice that, returns what they released.
	// WINDOWBENCH_GCLIMIT=F (a number) sets F times instead, to measure
	// what the collector's headroom adds to peak RSS.
	if n := s.db.MemoryLimit(); s.gcLimit && n > 0 {
		debug.SetMemoryLimit(int64(gcFactor() * float64(n)))
	}
	return nil
}

// gcFactor is WINDOWBENCH_GCLIMIT, or the CLI's 2.
func gcFactor() float64 {
	if f, err := strconv.ParseFloat(os.Getenv("WINDOWBENCH_GCLIMIT"), 64); err == nil && f > 0 {
		return f
	}
	return 2
}

func (s *srowSession) row(ctx context.Context, q string) ([]string, error) {
	a, _, err := (&tpch.Srow{DB: s.db}).Run(ctx, q)
	if err != nil {
		return nil, err
	}
	if len(a.Rows) != 1 {
		return nil, fmt.Errorf("%d rows, want 1", len(a.Rows))
	}
	return a.Rows[0], nil
}

func (s *srowSession) close() error { return nil } // engine.DB has no Close: the child exits

type duckSession struct{ db *sql.DB }

func (s *duckSession) exec(ctx context.Context, q string) error {
	_, err := s.db.ExecContext(ctx, q)
	return err
}

func (s *duckSession) row(ctx context.Context, q string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		if out != nil {
			return nil, fmt.Errorf("more than one row")
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		// Integers only (count, sum of integers: DuckDB's HUGEINT is a
		// *big.Int), so plain printing is their text.
		out = make([]string, len(vals))
		for i, v := range vals {
			out[i] = fmt.Sprint(v)
		}
	}
	return out, rows.Err()
}

func (s *duckSession) close() error { return s.db.Close() }
