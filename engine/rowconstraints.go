package engine

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/errkind"
)

// ErrNotNullViolation: a written row has NULL in a NOT NULL column,
// PostgreSQL's not_null_violation (SQLSTATE 23502). The message is
// PostgreSQL's: null value in column "c" of relation "t" violates
// not-null constraint.
var ErrNotNullViolation = errkind.Category(errkind.InvalidArgument, "engine: not-null violation")

// ErrCheckViolation: a written row makes a CHECK constraint's expression
// FALSE, PostgreSQL's check_violation (SQLSTATE 23514); the message is
// PostgreSQL's: new row for relation "t" violates check constraint "c".
var ErrCheckViolation = errkind.Category(errkind.InvalidArgument, "engine: check violation")

// checkFailed tests the CHECK constraints' values of a batch's rows
// (vals[i] is checks[i]'s boolean column), as ExecRelCheck does: a row
// fails a check only when the value is FALSE (NULL passes). The first
// failing row's first failing check, in the order given (the lowerer's:
// by name, as PostgreSQL tests them), is the error.
func checkFailed(rel string, checks []string, vals []arrow.Array) error {
	if len(checks) == 0 {
		return nil
	}
	if len(vals) != len(checks) {
		return fmt.Errorf("%w: %d CHECK constraint values for %d constraints", ErrInternal, len(vals), len(checks))
	}
	bs := make([]*array.Boolean, len(vals))
	for i, v := range vals {
		b, ok := v.(*array.Boolean)
		if !ok {
			return fmt.Errorf("%w: CHECK constraint %q computed as %s, not boolean", ErrInternal, checks[i], v.DataType())
		}
		bs[i] = b
	}
	for r := 0; r < vals[0].Len(); r++ {
		for i, b := range bs {
			if b.IsValid(r) && !b.Value(r) {
				return fmt.Errorf("%w: new row for relation %q violates check constraint %q", ErrCheckViolation, rel, checks[i])
			}
		}
	}
	return nil
}

// notNullError is PostgreSQL's ExecConstraints message for column col of
// table rel.
func notNullError(col, rel string) error {
	return fmt.Errorf("%w: null value in column %q of relation %q violates not-null constraint", ErrNotNullViolation, col, rel)
}

// checkNotNull is ExecConstraints' NOT NULL test of one batch of rows
// about to be written to rel: cols are the batch's user columns, in the
// order of schema's fields. It is the one test every write path runs
// (INSERT, INSERT ... SELECT, UPDATE, COPY) before the table layer sees
// the rows, so each reports PostgreSQL's text and SQLSTATE class; the
// table layer's own conform check stays as the storage invariant.
func checkNotNull(rel string, schema *arrow.Schema, cols []arrow.Array) error {
	for i, f := range schema.Fields() {
		if !f.Nullable && i < len(cols) && cols[i].NullN() > 0 {
			return notNullError(f.Name, rel)
		}
	}
	return nil
}

// constrainedReader passes an UPDATE's rows (_rowid, the user columns,
// then one value per CHECK constraint) through checkNotNull and
// checkFailed on their way to table.Update, which reads them without
// the checks' columns.
type constrainedReader struct {
	array.RecordReader
	rel    string
	schema *arrow.Schema // the table's user columns
	checks []string
	cur    arrow.RecordBatch // the batch without the checks' columns
	err    error
}

func (r *constrainedReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || !r.RecordReader.Next() {
		return false
	}
	b := r.RecordReader.RecordBatch()
	n := 1 + r.schema.NumFields()
	if int(b.NumCols()) != n+len(r.checks) {
		r.err = fmt.Errorf("%w: update rows have %d columns, want %d", ErrInternal, b.NumCols(), n+len(r.checks))
		return false
	}
	if r.err = checkNotNull(r.rel, r.schema, b.Columns()[1:n]); r.err != nil {
		return false
	}
	if r.err = checkFailed(r.rel, r.checks, b.Columns()[n:]); r.err != nil {
		return false
	}
	r.cur = array.NewRecordBatch(arrow.NewSchema(b.Schema().Fields()[:n], nil), b.Columns()[:n], b.NumRows())
	return true
}

func (r *constrainedReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *constrainedReader) Record() arrow.RecordBatch      { return r.cur }

func (r *constrainedReader) close() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

func (r *constrainedReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.RecordReader.Err()
}

// nullableSchema is s with every field nullable.
func nullableSchema(s *arrow.Schema) *arrow.Schema {
	fs := s.Fields()
	for i := range fs {
		fs[i].Nullable = true
	}
	return arrow.NewSchema(fs, nil)
}
