package srow

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/table"

	"github.com/stablerow/stablerow/bench/peer"
)

// FragmentRows is the default size of the fragments Load appends (the
// brief's 1M).
const FragmentRows = 1_000_000

// genBatchRows is the size of the batches Load feeds Append.
const genBatchRows = 1 << 16

// Engine is a stablerow database holding t.
type Engine struct {
	db   *engine.DB
	mem  memory.Allocator
	name string
}

var _ peer.Engine = (*Engine)(nil)

// Options configure Open.
type Options struct {
	Name         string           // label in reports ("" : "stablerow")
	Mem          memory.Allocator // nil: memory.DefaultAllocator
	FragmentRows int              // 0: FragmentRows
}

// Open opens a database directory, creating it if missing (dir "" keeps
// tables in memory).
func Open(dir string, o Options) (*Engine, error) {
	if o.Mem == nil {
		o.Mem = memory.DefaultAllocator
	}
	if o.FragmentRows <= 0 {
		o.FragmentRows = FragmentRows
	}
	if o.Name == "" {
		o.Name = "stablerow"
	}
	opt := engine.Options{Mem: o.Mem, Table: table.Options{MaxRowsPerFragment: o.FragmentRows}, Create: true}
	e := &Engine{mem: o.Mem, name: o.Name}
	if dir == "" {
		e.db = engine.OpenMemory(opt)
		return e, nil
	}
	db, err := engine.Open(dir, opt)
	if err != nil {
		return nil, err
	}
	e.db = db
	return e, nil
}

// DB is the underlying engine database.
func (e *Engine) DB() *engine.DB { return e.db }

// Name implements peer.Engine.
func (e *Engine) Name() string { return e.name }

// Load creates t and appends generated rows [0, rows) in one Append, which
// the table cuts into fragments of Options.FragmentRows.
func (e *Engine) Load(ctx context.Context, rows uint64) error {
	if _, err := e.db.CreateTable(ctx, "t", peer.UserSchema); err != nil {
		return err
	}
	rdr := &genReader{mem: e.mem, rows: rows}
	defer rdr.Release()
	if _, err := e.db.Append(ctx, "t", rdr); err != nil {
		return err
	}
	return rdr.Err()
}

// Exec runs statements (DDL, DML) and discards their batches.
func (e *Engine) Exec(ctx context.Context, sql string) (int64, error) {
	res, err := e.db.Exec(ctx, sql, nil)
	if err != nil {
		return 0, err
	}
	defer res.Release()
	return res.RowsAffected, nil
}

// ReadTable scans t's live rows with their system columns: what DuckDB is
// loaded from and id lists are drawn from.
func (e *Engine) ReadTable(ctx context.Context) (*peer.Table, error) {
	tb, err := e.db.Table(ctx, "t")
	if err != nil {
		return nil, err
	}
	sc, err := tb.Scan(ctx, table.ScanOptions{Columns: []string{table.RowID, table.RowAddr, "k", "payload"}, Mem: e.mem})
	if err != nil {
		return nil, err
	}
	defer sc.Release()
	out := &peer.Table{}
	for sc.Next() {
		b := sc.RecordBatch()
		rid, ok1 := b.Column(0).(*array.Uint64)
		addr, ok2 := b.Column(1).(*array.Uint64)
		k, ok3 := b.Column(2).(*array.Int64)
		p, ok4 := b.Column(3).(*array.Float64)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, fmt.Errorf("%w: scan of t: %s", ErrUnexpectedSchema, b.Schema())
		}
		out.RowID = append(out.RowID, rid.Uint64Values()...)
		out.RowAddr = append(out.RowAddr, addr.Uint64Values()...)
		out.K = append(out.K, k.Int64Values()...)
		out.Payload = append(out.Payload, p.Float64Values()...)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, out.Validate()
}

// sql is q's statement and parameters.
func (e *Engine) sql(q peer.Query) (string, map[string]any, error) {
	switch q.Kind {
	case peer.KindTake, peer.KindTakePayload:
		return peer.TakeSQL(":ids", q.Kind == peer.KindTakePayload), map[string]any{"ids": q.IDs}, nil
	case peer.KindInK:
		return peer.InKSQL(q.Keys), nil, nil
	case peer.KindContent:
		return peer.ContentSQL(":ids"), map[string]any{"ids": q.IDs}, nil
	}
	return "", nil, peer.UnsupportedKind(e.name, q.Kind)
}

// Run implements peer.Engine.
func (e *Engine) Run(ctx context.Context, q peer.Query) (peer.Answer, error) {
	res, err := e.run(ctx, q)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	switch q.Kind {
	case peer.KindInK:
		return kRows(res.Batches)
	case peer.KindContent:
		return contentRows(res.Batches)
	}
	return takeRows(res.Batches, q.Kind == peer.KindTakePayload)
}

func (e *Engine) run(ctx context.Context, q peer.Query) (*engine.Result, error) {
	sql, params, err := e.sql(q)
	if err != nil {
		return nil, err
	}
	return e.db.Exec(ctx, sql, params)
}

// Explain implements peer.Engine: the plan that ran, with its operators'
// metrics, summarized by SummarizePlan.
func (e *Engine) Explain(ctx context.Context, q peer.Query) (string, error) {
	res, err := e.run(ctx, q)
	if err != nil {
		return "", err
	}
	defer res.Release()
	return SummarizePlan(res.Plan), nil
}

// PlanText is the full plan of q, as the engine reports it.
func (e *Engine) PlanText(ctx context.Context, q peer.Query) (string, error) {
	res, err := e.run(ctx, q)
	if err != nil {
		return "", err
	}
	defer res.Release()
	return res.Plan, nil
}

// Delete implements peer.Engine.
func (e *Engine) Delete(ctx context.Context, pred string) (int64, error) {
	return e.Exec(ctx, "DELETE FROM t WHERE "+pred)
}

// genReader is an array.RecordReader over generated rows [0, rows).
type genReader struct {
	mem  memory.Allocator
	rows uint64
	next uint64
	cur  arrow.RecordBatch
	err  error
}

func (r *genReader) Retain()               {}
func (r *genReader) Schema() *arrow.Schema { return peer.UserSchema }
func (r *genReader) Err() error            { return r.err }

func (r *genReader) Release() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

// Next implements array.RecordReader.
func (r *genReader) Next() bool {
	r.Release()
	if r.next >= r.rows || r.err != nil {
		return false
	}
	hi := min(r.rows, r.next+genBatchRows)
	r.cur, r.err = peer.GenBatch(r.mem, r.next, hi)
	r.next = hi
	return r.err == nil
}

// RecordBatch implements array.RecordReader.
func (r *genReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record implements array.RecordReader (the deprecated name).
func (r *genReader) Record() arrow.RecordBatch { return r.cur }

// Recluster rewrites every fragment of t as a stable partition by column
// key (a reordered rewrite: rows move, row ids stay), recording a rowmap and
// deferring the index remap, so takes go through the fragment reuse
// history until OptimizeIndex.
func (e *Engine) Recluster(ctx context.Context, key string) error {
	t, err := e.db.Table(ctx, "t")
	if err != nil {
		return err
	}
	_, err = t.Recluster(ctx, key, table.ReclusterOptions{DeferIndexRemap: true, Mem: e.mem})
	return err
}

// OptimizeIndex brings index name of t up to date (the pending remaps
// applied in one commit).
func (e *Engine) OptimizeIndex(ctx context.Context, name string) error {
	return e.db.OptimizeIndex(ctx, "t", name)
}

// UpdateSame rewrites the rows with the given ids with their generated
// content (an UPDATE that sets every column to its value: new copies in a
// new fragment, same row ids, same content) through table.Update.
func (e *Engine) UpdateSame(ctx context.Context, ids []uint64) (uint64, error) {
	t, err := e.db.Table(ctx, "t")
	if err != nil {
		return 0, err
	}
	schema := arrow.NewSchema(append([]arrow.Field{{Name: table.RowID, Type: arrow.PrimitiveTypes.Uint64}}, peer.UserSchema.Fields()...), nil)
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for lo := 0; lo < len(ids); lo += genBatchRows {
		part := ids[lo:min(len(ids), lo+genBatchRows)]
		rb := array.NewUint64Builder(e.mem)
		kb := array.NewInt64Builder(e.mem)
		pb := array.NewFloat64Builder(e.mem)
		for _, id := range part {
			rb.Append(id)
			kb.Append(peer.K(id))
			pb.Append(peer.Payload(id))
		}
		r, k, p := rb.NewArray(), kb.NewArray(), pb.NewArray()
		rb.Release()
		kb.Release()
		pb.Release()
		batches = append(batches, array.NewRecordBatch(schema, []arrow.Array{r, k, p}, int64(len(part))))
		r.Release()
		k.Release()
		p.Release()
	}
	_, n, err := t.UpdateBatches(ctx, batches, e.mem)
	return n, err
}

// Compact merges t's small or deletion-heavy fragments (table.Compact), the
// index remap deferred to OptimizeIndex as after Recluster.
func (e *Engine) Compact(ctx context.Context) error {
	t, err := e.db.Table(ctx, "t")
	if err != nil {
		return err
	}
	_, err = t.Compact(ctx, table.CompactOptions{DeferIndexRemap: true, Mem: e.mem})
	return err
}
