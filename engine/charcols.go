package engine

import (
	"context"
	"strings"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/fileio"
	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

// Tables written before the engine held character(n) without its trailing
// blanks (value/bpchar.go) declare their char(n) columns as a bare "char(n)"
// and store the values blank-padded; newer ones declare "char(n) trimmed"
// (table.CharTrimmed). The provider strips an old column as it scans it,
// so every operator above sees the engine's form, and it answers no index
// probe or take on such a table: their keys and values are the stored,
// padded ones (the planner then scans, which is correct if slower).

// paddedChar reports a char(n) column stored blank-padded.
func paddedChar(f arrow.Field) bool {
	decl, ok := table.SQLType(f)
	return ok && strings.HasPrefix(decl, "char(") && !strings.HasSuffix(decl, table.CharTrimmed)
}

// hasPaddedChar reports a table with such a column.
func hasPaddedChar(s *arrow.Schema) bool {
	for _, f := range s.Fields() {
		if paddedChar(f) {
			return true
		}
	}
	return false
}

// stripPaddedChars puts a projection stripping the trailing blanks of the
// padded char(n) columns over scan, whose columns are the table's columns
// cols; scan itself when there is none.
func stripPaddedChars(scan exec.Node, s *arrow.Schema, cols []int) (exec.Node, error) {
	exprs := make([]physexpr.Expr, len(cols))
	names := make([]string, len(cols))
	strip := false
	for i, c := range cols {
		f := s.Field(c)
		names[i] = f.Name
		exprs[i] = physexpr.Col{Index: i, Name: f.Name}
		if paddedChar(f) {
			exprs[i] = physexpr.CharCast{E: exprs[i], Trim: true}
			strip = true
		}
	}
	if !strip {
		return scan, nil
	}
	return exec.NewProjectExec(scan, exprs, names)
}

// assignDeclared applies the declared types' assignment casts (varchar(n),
// char(n): sql.DeclaredCast) of a table's user columns, schema, to a batch
// of them, b, as COPY FROM and Append write it; b itself when no column
// has one. The caller releases the result (and b).
func assignDeclared(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, schema *arrow.Schema) (arrow.RecordBatch, error) {
	var cols []arrow.Array
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, f := range schema.Fields() {
		c, ok := sql.DeclaredCast(f)
		if !ok || i >= int(b.NumCols()) {
			continue
		}
		if cols == nil {
			cols = make([]arrow.Array, schema.NumFields())
		}
		a, err := physexpr.NewCharCast(physexpr.Col{Index: i, Name: f.Name}, c).Evaluate(ctx, mem, b)
		if err != nil {
			return nil, err
		}
		cols[i] = a
	}
	if cols == nil || int(b.NumCols()) != schema.NumFields() {
		b.Retain()
		return b, nil
	}
	for i := range cols {
		if cols[i] == nil {
			cols[i] = b.Column(i)
			cols[i].Retain()
		}
	}
	return array.NewRecordBatch(schema, cols, b.NumRows()), nil
}

// hasDeclaredLength reports a column assignDeclared changes or checks.
func hasDeclaredLength(s *arrow.Schema) bool {
	for _, f := range s.Fields() {
		if _, ok := sql.DeclaredCast(f); ok {
			return true
		}
	}
	return false
}

// conformDeclared is a file's batch b as a table's rows: its columns cast
// by position to the table's user columns, schema (fileio.Conform), then
// the declared types' rules applied as INSERT applies them
// (assignDeclared). COPY FROM and DB.AppendConformed read through it. The
// caller releases the result (and b).
func conformDeclared(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, schema *arrow.Schema) (arrow.RecordBatch, error) {
	conformed, err := fileio.Conform(ctx, mem, b, schema)
	if err != nil {
		return nil, err
	}
	defer conformed.Release()
	return assignDeclared(ctx, mem, conformed, schema)
}

// mapReader is a RecordReader of src's batches each passed through f
// (assignDeclared, conformDeclared), batch by batch, for DB.Append and
// DB.AppendConformed. release frees the last batch; the caller keeps src.
type mapReader struct {
	ctx    context.Context
	mem    memory.Allocator
	src    array.RecordReader
	schema *arrow.Schema
	f      func(context.Context, memory.Allocator, arrow.RecordBatch, *arrow.Schema) (arrow.RecordBatch, error)
	cur    arrow.RecordBatch
	err    error
}

func (r *mapReader) Retain()                        {}
func (r *mapReader) Release()                       { r.release() }
func (r *mapReader) Schema() *arrow.Schema          { return r.schema }
func (r *mapReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *mapReader) Record() arrow.RecordBatch      { return r.cur }

func (r *mapReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.src.Err()
}

func (r *mapReader) release() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

func (r *mapReader) Next() bool {
	r.release()
	if r.err != nil || !r.src.Next() {
		return false
	}
	r.cur, r.err = r.f(r.ctx, r.mem, r.src.RecordBatch(), r.schema)
	return r.err == nil
}
