package engine

import (
	"context"
	"errors"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// Rows is the result of one statement as a stream of Arrow record batches,
// read as the plan produces them: memory is bounded by the batch size, not
// by the result size.
//
//	rows, err := db.Query(ctx, "SELECT k FROM t", nil)
//	if err != nil { ... }
//	defer rows.Close()
//	for rows.Next() {
//		b := rows.Batch() // borrowed: valid until the next Next or Close
//	}
//	if err := rows.Err(); err != nil { ... }
//
// A statement without a result set (CREATE, INSERT, DELETE, ...) has run to
// completion when Query returns; its Rows has a nil Schema, no batches and
// RowsAffected. Rows is also an array.RecordReader (RecordBatch is Batch;
// Release closes it when the last reference goes), so it can feed anything
// that reads Arrow, table.Append included.
//
// The states of a Rows:
//
//	streaming --Next: batch--> streaming
//	    |  Next: io.EOF or error; Close
//	    v
//	  done  (stream closed, plan metrics final, Err set on failure)
//
// A Rows is not safe for concurrent use.
type Rows struct {
	ctx      context.Context
	schema   *arrow.Schema
	node     exec.Node   // the plan that runs (nil for statements without one)
	st       exec.Stream // nil once done
	batches  []arrow.RecordBatch
	cur      arrow.RecordBatch
	err      error
	affected int64
	summary  string // what a maintenance statement did (see Summary)
	tag      string // PostgreSQL's command tag (see Tag)
	text     string // EXPLAIN text, or "" to render node's metrics
	refs     atomic.Int64
	pool     *memlimit.Pool // the statement's, closed when done (nil: none)
	onFail   func(error)    // told of a failure while streaming (a session's transaction)
}

// setErr records the stream's first error and tells onFail: an error
// inside a transaction aborts it even when it comes while rows stream.
func (r *Rows) setErr(err error) {
	r.err = err
	if r.onFail != nil {
		r.onFail(err)
	}
}

// newStreamRows returns Rows reading st, the running stream of node.
func newStreamRows(ctx context.Context, node exec.Node, st exec.Stream) *Rows {
	r := &Rows{ctx: ctx, schema: node.Schema(), node: node, st: st}
	r.refs.Store(1)
	return r
}

// newBatchRows returns Rows over batches it takes ownership of.
func newBatchRows(schema *arrow.Schema, batches []arrow.RecordBatch, text string) *Rows {
	r := &Rows{schema: schema, batches: batches, text: text}
	r.refs.Store(1)
	return r
}

// newDoneRows is the result of a statement without a result set.
func newDoneRows(affected int64) *Rows {
	r := &Rows{affected: affected}
	r.refs.Store(1)
	return r
}

// Schema is the schema of every batch, or nil for a statement without a
// result set.
func (r *Rows) Schema() *arrow.Schema { return r.schema }

// Next advances to the next batch and reports whether there is one. At the
// end or on an error it returns false and closes the stream; see Err.
func (r *Rows) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if len(r.batches) > 0 {
		r.cur, r.batches = r.batches[0], r.batches[1:]
		return true
	}
	if r.st == nil {
		return false
	}
	b, err := r.next()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			r.setErr(err)
		}
		r.finish()
		return false
	}
	r.cur = b
	return true
}

// next pulls one batch; a panic in an operator becomes an InternalError.
func (r *Rows) next() (b arrow.RecordBatch, err error) {
	defer recoverInternal(&err)
	return r.st.Next(r.ctx)
}

// finish closes the stream; a close error is kept if nothing failed before.
func (r *Rows) finish() {
	if r.st == nil {
		return
	}
	st := r.st
	r.st = nil
	err := func() (err error) {
		defer recoverInternal(&err)
		return st.Close()
	}()
	// The operators freed their reservations as the stream closed: what
	// is left of a shared budget's grant goes back now.
	r.pool.Close()
	if r.err == nil && err != nil {
		r.setErr(err)
	}
}

// Batch is the current batch, borrowed until the next Next or Close (Retain
// it to keep it).
func (r *Rows) Batch() arrow.RecordBatch { return r.cur }

// RecordBatch is Batch (array.RecordReader).
func (r *Rows) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is Batch (array.RecordReader's deprecated name).
func (r *Rows) Record() arrow.RecordBatch { return r.cur }

// Err is the error that ended the stream, nil at a clean end.
func (r *Rows) Err() error { return r.err }

// RowsAffected is the number of rows a DML statement wrote or deleted.
func (r *Rows) RowsAffected() int64 { return r.affected }

// Summary says, for people, what a statement without a result set did
// when the rows affected do not: e.g. "CREATE INDEX rid (btree on _rowid,
// 3 fragments, 200000 rows)" for CREATE INDEX, CLUSTER and REINDEX; ""
// for other statements.
func (r *Rows) Summary() string { return r.summary }

// Tag is PostgreSQL's command tag for a statement without a result set:
// "CREATE TABLE", "INSERT 0 3", "DELETE 1" (what psql prints after it); ""
// for queries.
func (r *Rows) Tag() string { return r.tag }

// Plan is the EXPLAIN text of an EXPLAIN statement, or for a query the plan
// that ran with its metrics (final once Next has returned false).
func (r *Rows) Plan() string {
	if r.text == "" && r.node != nil {
		return exec.Explain(r.node, true)
	}
	return r.text
}

// Close stops the statement early if it is still running and frees what
// the Rows holds. Close is idempotent; it returns Err.
func (r *Rows) Close() error {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for _, b := range r.batches {
		b.Release()
	}
	r.batches = nil
	r.finish()
	return r.err
}

// Retain adds a reference (array.RecordReader).
func (r *Rows) Retain() { r.refs.Add(1) }

// Release drops a reference and closes the Rows at the last one.
func (r *Rows) Release() {
	if r.refs.Add(-1) == 0 {
		r.Close()
	}
}

// drain reads the rows to the end, releasing every batch: a statement that
// is not the last of a script, or the query under EXPLAIN ANALYZE.
func (r *Rows) drain() error {
	for r.Next() {
	}
	return r.Close()
}

// collect reads the rows to the end into a Result, closing r.
func (r *Rows) collect() (*Result, error) {
	res := &Result{Schema: r.schema, RowsAffected: r.affected}
	for r.Next() {
		b := r.Batch()
		b.Retain()
		res.Batches = append(res.Batches, b)
	}
	if err := r.Close(); err != nil {
		res.Release()
		return nil, err
	}
	res.Plan = r.Plan()
	return res, nil
}

var _ array.RecordReader = (*Rows)(nil)

// Result is a statement's result read to the end (Exec): a convenience for
// small results. It owns its batches.
type Result struct {
	Schema       *arrow.Schema
	Batches      []arrow.RecordBatch
	RowsAffected int64
	// Plan is the plan that ran, with metrics (queries), or the EXPLAIN text.
	Plan string
}

// Release frees the batches.
func (r *Result) Release() {
	if r == nil {
		return
	}
	for _, b := range r.Batches {
		b.Release()
	}
	r.Batches = nil
}

// NumRows is the number of result rows.
func (r *Result) NumRows() int64 {
	var n int64
	for _, b := range r.Batches {
		n += b.NumRows()
	}
	return n
}
