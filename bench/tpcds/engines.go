package tpcds

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" database/sql driver

	"github.com/stablerow/stablerow/bench/tpch"
	"github.com/stablerow/stablerow/engine"
)

// Duck is DuckDB (in memory, through database/sql) loaded with the tables.
type Duck struct{ db *sql.DB }

// OpenDuck opens an in-memory DuckDB with threads threads (0: its default,
// the cores) and loads every table, created with the specification's DDL,
// from dir's Parquet files. DuckDB's CHAR(n) is its VARCHAR: values are
// not blank-padded (tpch.CellEqual trims them).
func OpenDuck(ctx context.Context, dir string, threads int) (*Duck, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one in-memory database: one connection
	d := &Duck{db: db}
	stmts := []string{}
	if threads > 0 {
		stmts = append(stmts, fmt.Sprintf("SET threads = %d", threads))
	}
	for _, t := range Tables {
		stmts = append(stmts, CreateDDL(t),
			fmt.Sprintf("INSERT INTO %s SELECT * FROM read_parquet('%s')", t.Name, ParquetPath(dir, t.Name)))
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			db.Close()
			return nil, fmt.Errorf("duckdb: %s: %w", s[:min(len(s), 60)], err)
		}
	}
	return d, nil
}

// Close closes the database.
func (d *Duck) Close() error { return d.db.Close() }

// Setting is one of DuckDB's settings (version() for "version").
func (d *Duck) Setting(ctx context.Context, name string) string {
	q := fmt.Sprintf("SELECT current_setting('%s')::VARCHAR", name)
	if name == "version" {
		q = "SELECT version()"
	}
	var v string
	if err := d.db.QueryRowContext(ctx, q).Scan(&v); err != nil {
		return "?"
	}
	return v
}

// Run runs a query and reads its answer; the time includes the read.
func (d *Duck) Run(ctx context.Context, q string) (*tpch.Answer, time.Duration, error) {
	start := time.Now()
	rows, err := d.db.QueryContext(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	a, err := tpch.ReadSQL(rows)
	return a, time.Since(start), err
}

// Srow is a stablerow database (in memory) loaded with the tables.
type Srow struct{ DB *engine.DB }

// OpenSrow loads every table from dir's Parquet files: CREATE TABLE with
// the specification's DDL, then the file's batches through
// AppendConformed (checked against CHAR(n) and VARCHAR(n) as INSERT
// checks them), with threads partitions (0: the cores).
func OpenSrow(ctx context.Context, dir string, threads int, mem memory.Allocator) (*Srow, error) {
	return OpenSrowWith(ctx, dir, threads, engine.Options{Mem: mem})
}

// OpenSrowWith is OpenSrow with the database's options (a planner switch
// such as DisableRollup for a benchmark's before); opt.Mem nil: the
// default allocator.
func OpenSrowWith(ctx context.Context, dir string, threads int, opt engine.Options) (*Srow, error) {
	if opt.Mem == nil {
		opt.Mem = memory.DefaultAllocator
	}
	mem := opt.Mem
	opt.Create = true
	db := engine.OpenMemory(opt)
	if threads > 0 {
		if err := db.SetThreads(threads); err != nil {
			return nil, err
		}
	}
	for _, t := range Tables {
		res, err := db.Exec(ctx, CreateDDL(t), nil)
		if err != nil {
			return nil, fmt.Errorf("stablerow: %w", err)
		}
		res.Release()
		rr, closeFile, err := tpch.ReadParquet(ctx, ParquetPath(dir, t.Name), mem)
		if err != nil {
			return nil, err
		}
		_, err = db.AppendConformed(ctx, t.Name, rr)
		rr.Release()
		if cerr := closeFile(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("stablerow: load %s: %w", t.Name, err)
		}
	}
	return &Srow{DB: db}, nil
}

// Run runs a query and reads its answer as text.
func (s *Srow) Run(ctx context.Context, q string) (*tpch.Answer, time.Duration, error) {
	start := time.Now()
	rows, err := s.DB.Query(ctx, q, nil)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	a := &tpch.Answer{}
	for _, f := range rows.Schema().Fields() {
		a.Columns = append(a.Columns, f.Name)
	}
	for rows.Next() {
		if err := a.AppendArrow(rows.Batch()); err != nil {
			return nil, 0, err
		}
	}
	return a, time.Since(start), rows.Err()
}
