package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/fileio"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

type filePolicyKey struct{}

// WithFilePolicy returns ctx under which COPY, CREATE TABLE AS ... and
// every other file access of a statement follows p instead of the DB's
// Options.Files. The Flight SQL server runs every statement so, with the
// policy it was started with: a network client never gets the local one.
func WithFilePolicy(ctx context.Context, p fileio.Policy) context.Context {
	return context.WithValue(ctx, filePolicyKey{}, p)
}

// files is the file policy of a statement run on ctx.
func (db *DB) files(ctx context.Context) fileio.Policy {
	if p, ok := ctx.Value(filePolicyKey{}).(fileio.Policy); ok {
		return p
	}
	if db.opt.Files != nil {
		return *db.opt.Files
	}
	return fileio.Unrestricted
}

func (db *DB) batchSize() int {
	if db.opt.BatchSize > 0 {
		return db.opt.BatchSize
	}
	return exec.DefaultBatchSize
}

// openFile opens a COPY FROM source as a stream of batches in the file's
// engine types (Parquet) or the table's (CSV, which has no types of its
// own).
func (db *DB) openFile(ctx context.Context, name string, opt fileio.Options, schema *arrow.Schema) (fileStream, error) {
	f, err := db.files(ctx).Open(name)
	if err != nil {
		return nil, err
	}
	switch opt.Format {
	case fileio.Parquet:
		return fileio.NewParquetReader(ctx, f, db.mem(), db.batchSize())
	default:
		r, err := fileio.NewCSVReader(f, schema, opt, db.mem(), db.batchSize())
		if err != nil {
			f.Close()
			return nil, err
		}
		return r, nil
	}
}

type fileStream interface {
	Schema() *arrow.Schema
	Next(ctx context.Context) (arrow.RecordBatch, error)
	Close() error
}

// copyFrom streams the file into the table: table.Append writes fragments
// as the batches come, so memory is a batch and an open fragment.
func (db *DB) copyFrom(ctx context.Context, cat *catalog, s *sql.CopyFrom) (int64, error) {
	t, err := cat.target(s.Table)
	if err != nil {
		return 0, err
	}
	checks, err := db.newCopyChecks(s.Table, t) // copycheck.go
	if err != nil {
		return 0, err
	}
	us := t.UserSchema()
	// The file is read and converted as if every column were nullable:
	// NOT NULL is the row check's (checkNotNull), which names the relation
	// as PostgreSQL's message does.
	loose := nullableSchema(us)
	src, err := db.openFile(ctx, s.File, s.Options, loose)
	if err != nil {
		return 0, fmt.Errorf("COPY %s FROM %q: %w", s.Table, s.File, err)
	}
	in := &fileReader{ctx: ctx, src: src, rel: s.Table, schema: us, loose: loose, db: db, checks: checks}
	defer in.close()
	if _, err := t.Append(ctx, in, db.mem()); err != nil && in.err == nil {
		return 0, fmt.Errorf("COPY %s FROM %q: %w", s.Table, s.File, err)
	}
	if in.err != nil {
		return 0, fmt.Errorf("COPY %s FROM %q: %w", s.Table, s.File, in.err)
	}
	return in.n, nil
}

// fileReader is the RecordReader table.Append reads a file's rows from,
// each batch conformed (by position) to the table's user columns.
type fileReader struct {
	ctx    context.Context
	src    fileStream
	rel    string // the table's name, for constraint messages
	schema *arrow.Schema
	loose  *arrow.Schema // schema with every column nullable
	checks *copyChecks   // the table's CHECK constraints, nil without any
	db     *DB
	cur    arrow.RecordBatch
	err    error
	n      int64
}

func (r *fileReader) Retain()                        {}
func (r *fileReader) Release()                       {}
func (r *fileReader) Schema() *arrow.Schema          { return r.schema }
func (r *fileReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *fileReader) Record() arrow.RecordBatch      { return r.cur }
func (r *fileReader) Err() error                     { return r.err }

func (r *fileReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	b, err := r.src.Next(r.ctx)
	if errors.Is(err, io.EOF) {
		return false
	}
	if err == nil {
		var c arrow.RecordBatch
		c, err = conformDeclared(r.ctx, r.db.mem(), b, r.loose)
		b.Release()
		if err == nil {
			if err = checkNotNull(r.rel, r.schema, c.Columns()); err == nil {
				r.cur = array.NewRecordBatch(r.schema, c.Columns(), c.NumRows())
				if r.checks != nil {
					err = r.checks.test(r.ctx, r.cur)
				}
			}
			c.Release()
		}
	}
	if err != nil {
		r.err = err
		return false
	}
	r.n += r.cur.NumRows()
	return true
}

func (r *fileReader) close() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.src.Close()
}

// copyTo streams the query's rows into the file. A failure removes the
// partial file rather than leave a truncated one that looks complete.
func (db *DB) copyTo(ctx context.Context, cat *catalog, s *sql.CopyTo, params map[string]any) (n int64, err error) {
	rows, err := db.startQuery(ctx, cat, s.Source, params)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	pol := db.files(ctx)
	f, err := pol.Create(s.File)
	if err != nil {
		return 0, fmt.Errorf("COPY TO %q: %w", s.File, err)
	}
	defer func() {
		// The Parquet writer closes the file itself with its footer.
		if cerr := f.Close(); err == nil && cerr != nil && !errors.Is(cerr, os.ErrClosed) {
			err = cerr
		}
		if err != nil {
			_ = pol.Remove(s.File)
			err = fmt.Errorf("COPY TO %q: %w", s.File, err)
		}
	}()
	w, err := newFileWriter(f, rows.Schema(), s.Options, db)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		if err := w.Write(rows.Batch()); err != nil {
			return 0, err
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return w.Rows(), nil
}

type fileWriter interface {
	Write(arrow.RecordBatch) error
	Close() error
	Rows() int64
}

func newFileWriter(f *os.File, schema *arrow.Schema, opt fileio.Options, db *DB) (fileWriter, error) {
	if opt.Format == fileio.Parquet {
		return fileio.NewParquetWriter(f, schema, db.mem())
	}
	return fileio.NewCSVWriter(f, schema, opt)
}

// createTableAs creates the table with the query's columns and streams
// the rows in as INSERT does. The table and its rows are two commits; if
// the rows fail, the new table is dropped, so the statement leaves either
// the full table or none.
func (db *DB) createTableAs(ctx context.Context, cat *catalog, s *sql.CreateTableAs, params map[string]any) (int64, error) {
	node, err := db.build(serialPlan(ctx), cat, s.Source)
	if err != nil {
		return 0, err
	}
	// The query's own column types (the table format stores every type a
	// query yields, a declared varchar(n)/char(n) in the field's metadata);
	// CreateTable refuses any other by name.
	fields := make([]arrow.Field, node.Schema().NumFields())
	for i, f := range node.Schema().Fields() {
		md := f.Metadata
		// A projection's output field has no metadata: the lowerer's
		// declared varchar(n)/char(n) is put back here.
		if i < len(s.Declared) && s.Declared[i] != "" && f.Type.ID() == arrow.STRING {
			md = arrow.NewMetadata([]string{table.SQLTypeKey}, []string{s.Declared[i]})
		}
		fields[i] = arrow.Field{Name: f.Name, Type: f.Type, Nullable: true, Metadata: md}
	}
	schema := arrow.NewSchema(fields, nil)
	if _, err := db.CreateTable(ctx, s.Name, schema); err != nil {
		if errors.Is(err, ErrTableExists) && s.IfNotExists {
			return 0, nil
		}
		return 0, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = db.DropTable(context.WithoutCancel(ctx), s.Name)
		}
	}()
	ins := &sql.Insert{Table: s.Name, Source: s.Source}
	n, err := db.insert(ctx, db.newCatalog(ctx), ins, params)
	if err != nil {
		return 0, err
	}
	ok = true
	return n, nil
}
