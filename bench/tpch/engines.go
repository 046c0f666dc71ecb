package tpch

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/table"
)

// Duck is DuckDB (in memory, through database/sql) loaded with the
// tables.
type Duck struct{ db *sql.DB }

// OpenDuck opens an in-memory DuckDB with its default settings (threads =
// the number of cores) and loads every table, created with ddl's column
// types (DDLSpec, DDLText), from dir's Parquet files. DuckDB's CHAR(n) is
// its VARCHAR: values are not blank-padded (cellEqual).
func OpenDuck(ctx context.Context, dir, ddl string) (*Duck, error) {
	return OpenDuckAt(ctx, dir, "", ddl, 0)
}

// OpenDuckAt is OpenDuck with the database in the file path ("": in
// memory) and, when limit > 0, SET memory_limit to limit bytes (DuckDB
// spills beside its file then).
func OpenDuckAt(ctx context.Context, dir, path, ddl string, limit int64) (*Duck, error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one database: one connection
	d := &Duck{db: db}
	if limit > 0 {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("SET memory_limit = '%dKiB'", limit>>10)); err != nil {
			db.Close()
			return nil, fmt.Errorf("duckdb: %w", err)
		}
	}
	for _, t := range Tables {
		if _, err := db.ExecContext(ctx, CreateDDL(ddl, t.Name, t.Schema)); err != nil {
			db.Close()
			return nil, fmt.Errorf("duckdb: %w", err)
		}
		q := fmt.Sprintf("INSERT INTO %s SELECT * FROM read_parquet('%s')", t.Name, ParquetPath(dir, t.Name))
		if _, err := db.ExecContext(ctx, q); err != nil {
			db.Close()
			return nil, fmt.Errorf("duckdb: load %s: %w", t.Name, err)
		}
	}
	return d, nil
}

// Close closes the database.
func (d *Duck) Close() error { return d.db.Close() }

// Version is DuckDB's version.
func (d *Duck) Version(ctx context.Context) string {
	var v string
	if err := d.db.QueryRowContext(ctx, "SELECT version()").Scan(&v); err != nil {
		return "?"
	}
	return v
}

// Threads is DuckDB's thread setting.
func (d *Duck) Threads(ctx context.Context) string {
	var v string
	if err := d.db.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&v); err != nil {
		return "?"
	}
	return v
}

// Run runs a query and reads its answer; the time includes the read.
func (d *Duck) Run(ctx context.Context, q string) (*Answer, time.Duration, error) {
	start := time.Now()
	rows, err := d.db.QueryContext(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	a, err := readSQL(rows)
	return a, time.Since(start), err
}

// Srow is a stablerow database loaded with the tables.
type Srow struct {
	DB  *engine.DB
	mem memory.Allocator
}

// OpenSrow opens a stablerow database (in memory when path is "") and
// loads every table from dir's Parquet files: CREATE TABLE in SQL with
// ddl's column types, then Append of the file's batches through the
// library API, for DDLSpec each batch narrowed to the table's types
// (engine.DB.AppendConformed, as COPY FROM: the keys to INTEGER); both
// check CHAR(n) and VARCHAR(n) as INSERT does (the engine's rule). Both
// variants load the same batches, so their tables have the same layout.
func OpenSrow(ctx context.Context, dir, path, ddl string, mem memory.Allocator) (*Srow, error) {
	return OpenSrowWith(ctx, dir, path, ddl, mem, table.Options{})
}

// OpenSrowWith is OpenSrow writing the tables with topts (the data-file
// format: table.Options.EncodedDataFiles).
func OpenSrowWith(ctx context.Context, dir, path, ddl string, mem memory.Allocator, topts table.Options) (*Srow, error) {
	return openSrowAt(ctx, dir, path, ddl, mem, topts, "")
}

// openSrowAt is OpenSrowWith with the statements' spill files in spill
// ("": os.TempDir()).
func openSrowAt(ctx context.Context, dir, path, ddl string, mem memory.Allocator, topts table.Options, spill string) (*Srow, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	opt := engine.Options{Mem: mem, Create: true, Table: topts, SpillDir: spill}
	var db *engine.DB
	if path == "" {
		db = engine.OpenMemory(opt)
	} else {
		var err error
		if db, err = engine.Open(path, opt); err != nil {
			return nil, err
		}
	}
	s := &Srow{DB: db, mem: mem}
	for _, t := range Tables {
		res, err := db.Exec(ctx, CreateDDL(ddl, t.Name, t.Schema), nil)
		if err != nil {
			return nil, fmt.Errorf("stablerow: %w", err)
		}
		res.Release()
		rr, closeFile, err := ReadParquet(ctx, ParquetPath(dir, t.Name), mem)
		if err != nil {
			return nil, err
		}
		if ddl == DDLSpec {
			_, err = db.AppendConformed(ctx, t.Name, rr)
		} else {
			_, err = db.Append(ctx, t.Name, rr)
		}
		rr.Release()
		if cerr := closeFile(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("stablerow: load %s: %w", t.Name, err)
		}
	}
	return s, nil
}

// Run runs a query from SQL and reads its answer as text.
func (s *Srow) Run(ctx context.Context, q string) (*Answer, time.Duration, error) {
	start := time.Now()
	rows, err := s.DB.Query(ctx, q, nil)
	if err != nil {
		return nil, 0, err
	}
	a, err := drain(rows)
	return a, time.Since(start), err
}

// Substrait lowers a query to its Substrait plan, binary protobuf (the
// engine's own producer: SQL → Substrait, as the engine runs SQL).
func (s *Srow) Substrait(ctx context.Context, q string) ([]byte, error) {
	js, _, err := s.DB.SubstraitOf(ctx, q)
	if err != nil {
		return nil, err
	}
	var pb substraitpb.Plan
	if err := protojson.Unmarshal(js, &pb); err != nil {
		return nil, fmt.Errorf("stablerow: the engine's Substrait JSON: %w", err)
	}
	return proto.Marshal(&pb)
}

// RunSubstrait runs a binary Substrait plan through the outside-plan
// loader (QuerySubstrait).
func (s *Srow) RunSubstrait(ctx context.Context, plan []byte) (*Answer, time.Duration, error) {
	start := time.Now()
	rows, err := s.DB.QuerySubstrait(ctx, plan, nil)
	if err != nil {
		return nil, 0, err
	}
	a, err := drain(rows)
	return a, time.Since(start), err
}

func drain(rows *engine.Rows) (*Answer, error) {
	defer rows.Close()
	a := &Answer{}
	for _, f := range rows.Schema().Fields() {
		a.Columns = append(a.Columns, f.Name)
	}
	for rows.Next() {
		if err := a.appendArrow(rows.Batch()); err != nil {
			return nil, err
		}
	}
	return a, rows.Err()
}
