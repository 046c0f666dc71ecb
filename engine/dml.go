package engine

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/sql"
	"github.com/stablerow/stablerow/table"
)

// insert streams the source query's rows into the table: each batch is
// fitted to the table's user columns (target columns not named get NULL)
// and table.Append writes fragments as the batches arrive, so memory is
// bounded by a batch and an open fragment, not by the source.
func (db *DB) insert(ctx context.Context, cat *catalog, s *sql.Insert, params map[string]any) (int64, error) {
	t, err := cat.target(s.Table)
	if err != nil {
		return 0, err
	}
	us := t.UserSchema()
	pos := make([]int, us.NumFields()) // user column -> source column or -1
	for i := range pos {
		pos[i] = -1
	}
	if s.Columns == nil {
		for i := range pos {
			pos[i] = i
		}
	} else {
		for j, c := range s.Columns {
			i := t.ColumnIndex(c)
			if i < 0 || i >= us.NumFields() {
				return 0, fmt.Errorf("%w: insert into unknown column %q", table.ErrInvalidArgument, c)
			}
			pos[i] = j
		}
	}
	if s.OnConflict != nil && s.OnConflict.Update != nil {
		return db.upsert(ctx, cat, t, s, pos, params) // upsert.go
	}
	var conflicts *conflictFilter
	if s.OnConflict != nil {
		if conflicts, err = db.newConflictFilter(ctx, t, s.Table, s.OnConflict); err != nil { // onconflict.go
			return 0, err
		}
	}
	src, err := db.startQuery(serialPlan(ctx), cat, s.Source, params)
	if err != nil {
		return 0, err
	}
	in := &insertReader{ctx: ctx, src: src, rel: s.Table, schema: us, pos: pos, db: db, conflicts: conflicts, checks: s.Checks}
	defer in.close()
	if _, err := t.Append(ctx, in, db.mem()); err != nil {
		// The reader's own failure (a violated constraint) is the
		// statement's error, not wrapped as the table's input error.
		if in.err != nil {
			return 0, in.err
		}
		return 0, err
	}
	return in.n, nil
}

// insertReader is the RecordReader table.Append reads an INSERT's rows
// from: the source rows, batch by batch, fitted to the target's columns.
type insertReader struct {
	ctx context.Context
	src *Rows
	// conflicts, for ON CONFLICT DO NOTHING, drops the rows whose key a
	// row already holds.
	conflicts *conflictFilter
	rel       string // the table's name, for constraint messages
	// checks name the CHECK constraints whose values end each source
	// batch (sql.Insert.Checks).
	checks []string
	schema *arrow.Schema
	pos    []int
	db     *DB
	cur    arrow.RecordBatch
	err    error
	n      int64
}

func (r *insertReader) Retain()                        {}
func (r *insertReader) Release()                       {}
func (r *insertReader) Schema() *arrow.Schema          { return r.schema }
func (r *insertReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *insertReader) Record() arrow.RecordBatch      { return r.cur }

func (r *insertReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.src.Err()
}

func (r *insertReader) Next() bool {
	for r.next() {
		if r.conflicts == nil {
			r.n += r.cur.NumRows()
			return true
		}
		kept, err := r.conflicts.filter(r.ctx, r.cur)
		r.cur.Release()
		r.cur = kept
		if err != nil {
			r.err = err
			return false
		}
		if kept != nil {
			r.n += kept.NumRows()
			return true
		}
	}
	return false
}

// next reads the source's next batch, fitted to the table's columns.
func (r *insertReader) next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || !r.src.Next() {
		return false
	}
	b := r.src.Batch()
	cols := make([]arrow.Array, r.schema.NumFields())
	for i, f := range r.schema.Fields() {
		switch p := r.pos[i]; {
		case p >= int(b.NumCols()):
			releaseArrays(cols[:i])
			r.err = fmt.Errorf("%w: insert source has %d columns", table.ErrSchema, b.NumCols())
			return false
		case p >= 0:
			cols[i] = b.Column(p)
			cols[i].Retain()
		default:
			cols[i] = array.MakeArrayOfNull(r.db.mem(), f.Type, int(b.NumRows()))
		}
	}
	// A target column not named is NULL (stablerow has no DEFAULT), so
	// a NOT NULL one fails here, for the first row, as PostgreSQL's
	// ExecConstraints fails it: an INSERT of no rows succeeds.
	if err := checkNotNull(r.rel, r.schema, cols); err != nil && b.NumRows() > 0 {
		releaseArrays(cols)
		r.err = err
		return false
	}
	// PostgreSQL's ExecConstraints runs after the NOT NULL test and
	// before ON CONFLICT's arbiter check, so a row that would be skipped still fails its CHECK.
	if k := len(r.checks); k > 0 {
		if int(b.NumCols()) < k {
			releaseArrays(cols)
			r.err = fmt.Errorf("%w: insert source has %d columns", table.ErrSchema, b.NumCols())
			return false
		}
		if r.err = checkFailed(r.rel, r.checks, b.Columns()[int(b.NumCols())-k:]); r.err != nil {
			releaseArrays(cols)
			return false
		}
	}
	r.cur = array.NewRecordBatch(r.schema, cols, b.NumRows())
	releaseArrays(cols)
	return true
}

func (r *insertReader) close() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.src.Close()
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// delete streams the row query (one _rowid column) and deletes the ids it
// yields; only the ids are kept, 8 bytes a row.
func (db *DB) delete(ctx context.Context, cat *catalog, s *sql.Delete, params map[string]any) (int64, error) {
	t, err := cat.target(s.Table)
	if err != nil {
		return 0, err
	}
	rows, err := db.startQuery(ctx, cat, s.Rows, params)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var ids []uint64
	for rows.Next() {
		b := rows.Batch()
		c, ok := b.Column(0).(*array.Uint64)
		if !ok {
			return 0, fmt.Errorf("%w: delete row query returned %s, want uint64 _rowid", table.ErrSchema, b.Column(0).DataType())
		}
		ids = append(ids, c.Uint64Values()...)
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	_, n, err := t.DeleteRowIDs(ctx, ids)
	if err != nil {
		return 0, err
	}
	return int64(n), nil
}

// update streams the row query (_rowid, then every user column) into
// table.Update, which writes the new rows as they come.
func (db *DB) update(ctx context.Context, cat *catalog, s *sql.Update, params map[string]any) (int64, error) {
	t, err := cat.target(s.Table)
	if err != nil {
		return 0, err
	}
	rows, err := db.startQuery(serialPlan(ctx), cat, s.Rows, params)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	in := &constrainedReader{RecordReader: rows, rel: s.Table, schema: t.UserSchema(), checks: s.Checks}
	defer in.close()
	_, n, err := t.Update(ctx, in, db.mem())
	if in.err != nil {
		return 0, in.err
	}
	if err != nil {
		return 0, err
	}
	return int64(n), nil
}
