package server

import (
	"context"
	"os"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// Parameter uploads (DoPut of a prepared statement's parameters) take one
// of three paths, chosen from the statement's shape
// (engine.DB.UnnestOnlyParams) and the upload's first batch:
//
//   - streamed (DoPutPreparedStatementUpdate, which runs the statement
//     during the DoPut): an upload of one int64 or text column bound to a
//     parameter the statement reads once, as UNNEST($1) in FROM, is not
//     read ahead at all. It is bound as an exec.ListSource
//     (uploadSource) and the statement's UnnestExec reads the batches off
//     the network as it goes, so it holds about one batch, whatever the
//     upload's size; the statement commits once at the end, and an upload
//     that fails or is cancelled midway fails it, committing nothing.
//   - spilled (DoPutPreparedStatementQuery, which binds for a later
//     GetFlightInfo): the same upload to a statement that uses $1 only as
//     UNNEST's list (however many times), under a statement memory limit,
//     is held until it passes a quarter of that limit (spillAt); then what
//     it held and the rest go to an Arrow IPC file in the engine's spill
//     directory, bound as a spilledParam that each run reads back batch by
//     batch. The file goes when the statement is rebound, closed, dropped
//     after Options.PreparedTTL, or the server shuts down.
//   - whole (every other statement and upload): the batches are converted
//     to one Go value per parameter (engine.ParamsFromArrow), as the engine
//     binds lists.
//
// Whatever the path, the bytes held are counted against the statement's
// limit and the server's budget (budget.upload) as they stream: the batch
// that passes either fails the upload with ResourceExhausted at once, and
// everything it held is released, as it is when the client cancels. What
// the statement keeps bound (the converted values) stays counted until it
// is rebound, closed or dropped after Options.PreparedTTL.

// ErrUploadReread is a streamed parameter upload asked for a second time
// by the statement it streams into: it comes off the network once.
var ErrUploadReread = errkind.New(errkind.InvalidArgument, "server: a streamed parameter upload is read once")

// heldParams is the memory a prepared statement's bound parameters hold,
// reserved in the budget until release, and the directory of the file
// they were spilled to, with its size.
type heldParams struct {
	pool  *memlimit.Pool
	res   *memlimit.Reservation
	count *atomic.Int64 // the server's upload bytes
	dir   string        // spill directory ("": none)
	// spilled is the bytes written to the spill file, counted in
	// spillCount (the server's MemoryStatus.UploadSpilled) until release.
	// Written by the upload's goroutine; release comes after it.
	spilled    int64
	spillCount *atomic.Int64
	// refresh, when set (the budget's stale), brings a held live-heap
	// figure up to date before a refused grow is tried again.
	refresh func()
}

func (s *Server) newHeld() *heldParams {
	h := &heldParams{pool: s.budget.upload(s.db.MemoryLimit()), count: &s.uploadBytes, spillCount: &s.uploadSpilled}
	if s.budget != nil {
		h.refresh = s.budget.stale
	}
	h.res = h.pool.NewReservation("parameter upload")
	return h
}

// grow counts n more bytes, or fails with ResourceExhausted.
func (h *heldParams) grow(n int64) error {
	err := h.res.TryGrow(n)
	if err != nil && h.refresh != nil {
		// The heavy lane may be full of garbage the heap watcher still
		// holds from the last collection (heapwatch.go collect): look
		// again after a collection, once.
		h.refresh()
		err = h.res.TryGrow(n)
	}
	if err != nil {
		return status.Errorf(codes.ResourceExhausted, "parameters: %v", err)
	}
	h.count.Add(n)
	return nil
}

func (h *heldParams) shrink(n int64) {
	h.count.Add(-n)
	h.res.Shrink(n)
}

func (h *heldParams) release() {
	if h == nil {
		return
	}
	h.count.Add(-h.res.Size())
	h.res.Free()
	h.pool.Close()
	h.spillCount.Add(-h.spilled)
	h.spilled = 0
	if h.dir != "" {
		_ = os.RemoveAll(h.dir)
		h.dir = ""
	}
}

// uploadMode is what the DoPut does with the parameters.
type uploadMode int

const (
	uploadBind uploadMode = iota // bind them for later runs (a query)
	uploadRun                    // run the statement now (an update)
)

// readParams reads the parameter batches a client sent, by the path the
// statement and the upload allow (above); the values come back with what
// holds them (release it when they are dropped). The batches are checked
// in full first: they come off the network and IPC decoding does not
// check offsets. No schema (a client that bound nothing) is no
// parameters. A streamed upload comes back as one uploadSource that has
// read only the first batch: the caller runs the statement, then
// releases.
func (s *Server) readParams(ctx context.Context, p *prepared, rdr flight.MessageReader, mode uploadMode) (_ []any, _ *heldParams, err error) {
	h := s.newHeld()
	var (
		recs    []arrow.RecordBatch
		spillAt int64 // spill past this many bytes held (0: never)
		spill   *spillWriter
	)
	defer func() {
		for _, b := range recs {
			b.Release()
		}
		if err != nil {
			if spill != nil {
				spill.abort()
			}
			h.release()
		}
	}()
	more := rdr.Next()
	if more && streamable(rdr.Schema()) {
		reads := s.unnestReads(ctx, p)
		switch {
		case mode == uploadRun && reads == 1:
			b := rdr.RecordBatch()
			n := recordBytes(b)
			if err := h.grow(n); err != nil {
				return nil, nil, err
			}
			if err := array.ValidateRecordFull(b); err != nil {
				return nil, nil, status.Errorf(codes.InvalidArgument, "parameters: %v", err)
			}
			b.Retain()
			src := &uploadSource{h: h, rdr: rdr, typ: rdr.Schema().Field(0).Type, first: b, held: n}
			return []any{src}, h, nil
		case mode == uploadBind && reads > 0:
			spillAt = s.spillAt(h)
		}
	}
	var batches int64
	for ; more; more = rdr.Next() {
		b := rdr.RecordBatch()
		n := recordBytes(b)
		if err := h.grow(n); err != nil {
			return nil, nil, err
		}
		batches += n
		if err := array.ValidateRecordFull(b); err != nil {
			return nil, nil, status.Errorf(codes.InvalidArgument, "parameters: %v", err)
		}
		if spill != nil {
			if err := spill.write(b); err != nil {
				return nil, nil, err
			}
			h.shrink(n)
			batches -= n
			continue
		}
		b.Retain()
		recs = append(recs, b)
		if spillAt > 0 && batches > spillAt {
			if spill, err = s.startSpill(h, rdr.Schema()); err != nil {
				return nil, nil, err
			}
			for _, r := range recs {
				if err := spill.write(r); err != nil {
					return nil, nil, err
				}
				r.Release()
			}
			recs = nil
			h.shrink(batches)
			batches = 0
		}
	}
	if err := rdr.Err(); err != nil {
		return nil, nil, status.Errorf(codes.InvalidArgument, "parameters: %v", err)
	}
	if spill != nil {
		src, err := spill.finish(s.mem)
		if err != nil {
			return nil, nil, err
		}
		return []any{src}, h, nil
	}
	schema := rdr.Schema()
	if schema == nil || schema.NumFields() == 0 {
		h.release()
		return nil, nil, nil
	}
	vals, err := engine.ParamsFromArrow(schema, recs)
	if err != nil {
		return nil, nil, s.statusOf(err)
	}
	// The batches go; the values they became stay, counted.
	if err := h.grow(paramBytes(vals)); err != nil {
		return nil, nil, err
	}
	h.shrink(batches)
	return vals, h, nil
}

// streamable is an upload the engine can read as a stream: one column of
// int64 or text (a column of values, not a list of one row), the lists
// UnnestExec reads as they come.
func streamable(schema *arrow.Schema) bool {
	if schema == nil || schema.NumFields() != 1 {
		return false
	}
	t := schema.Field(0).Type
	return arrow.TypeEqual(t, arrow.PrimitiveTypes.Int64) || arrow.TypeEqual(t, arrow.BinaryTypes.String)
}

// unnestReads is how many UNNESTs read $1 if the statement uses it only
// so, else 0 (and 0 for a statement that does not plan: it fails when it
// runs, with its own error).
func (s *Server) unnestReads(ctx context.Context, p *prepared) int {
	uses, err := s.db.UnnestOnlyParams(s.stmtCtx(ctx), p.sql, p.plan)
	if err != nil {
		return 0
	}
	return uses[1]
}

// spillAt is how many bytes a bound upload may hold before it spills: a
// quarter of the statement's memory limit, and at most half of what the
// upload may count (so it spills before it would be refused). Without a
// statement limit an upload does not spill: it is held, counted against
// the server's budget and refused past it, as before.
func (s *Server) spillAt(h *heldParams) int64 {
	limit := s.db.MemoryLimit()
	if limit <= 0 {
		return 0
	}
	at := limit / 4
	if pl := h.pool.Limit(); pl > 0 {
		at = min(at, pl/2)
	}
	return max(at, 1)
}

// recordBytes is the size of a batch's buffers.
func recordBytes(b arrow.RecordBatch) int64 {
	var n int64
	for _, c := range b.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += dataBytes(d.Dictionary())
	}
	return n
}

// paramBytes is about what converted parameter values hold
// (engine.ParamsFromArrow's forms).
func paramBytes(vals []any) int64 {
	var n int64
	for _, v := range vals {
		switch x := v.(type) {
		case []int64:
			n += 8 * int64(cap(x))
		case []uint64:
			n += 8 * int64(cap(x))
		case []string:
			n += 16 * int64(cap(x))
			for _, s := range x {
				n += int64(len(s))
			}
		case []*int64:
			n += 16 * int64(cap(x)) // the pointers and the values they point into
		case []*uint64:
			n += 16 * int64(cap(x))
		case []*string:
			n += 24 * int64(cap(x))
			for _, s := range x {
				if s != nil {
					n += int64(len(*s))
				}
			}
		case string:
			n += 16 + int64(len(x))
		default:
			n += 16
		}
	}
	return n
}
