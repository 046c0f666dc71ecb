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

// constrainedReader passes an UPDATE's rows (_rowid, then the user
// columns) through checkNotNull on their way to table.Update.
type constrainedReader struct {
	array.RecordReader
	rel    string
	schema *arrow.Schema // the table's user columns
	err    error
}

func (r *constrainedReader) Next() bool {
	if r.err != nil || !r.RecordReader.Next() {
		return false
	}
	b := r.RecordReader.RecordBatch()
	if b.NumCols() > 0 {
		if r.err = checkNotNull(r.rel, r.schema, b.Columns()[1:]); r.err != nil {
			return false
		}
	}
	return true
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
