package server

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// Parameter uploads (DoPut of a prepared statement's parameters) are
// buffered whole: the engine binds a list of ids as one Go value. So their
// bytes are counted against the statement's limit and the server's budget
// as they stream (budget.upload): the batch that passes either fails the
// upload with ResourceExhausted at once, and everything it held is
// released, as it is when the client cancels. What the statement keeps
// bound (the converted values) stays counted until it is rebound, closed
// or dropped after Options.PreparedTTL.

// heldParams is the memory a prepared statement's bound parameters hold,
// reserved in the budget until release.
type heldParams struct {
	pool  *memlimit.Pool
	res   *memlimit.Reservation
	count *atomic.Int64 // the server's upload bytes
}

func (h *heldParams) release() {
	if h == nil {
		return
	}
	h.count.Add(-h.res.Size())
	h.res.Free()
	h.pool.Close()
}

// readParams reads the parameter batches a client sent and converts them
// (engine.ParamsFromArrow), counting their bytes in an upload pool; the
// values come back with what holds them (release it when they are
// dropped). The batches are checked in full first: they come off the
// network and IPC decoding does not check offsets. No schema (a client
// that bound nothing) is no parameters.
func (s *Server) readParams(rdr flight.MessageReader) (_ []any, _ *heldParams, err error) {
	h := &heldParams{pool: s.budget.upload(s.db.MemoryLimit()), count: &s.uploadBytes}
	h.res = h.pool.NewReservation("parameter upload")
	var recs []arrow.RecordBatch
	defer func() {
		for _, b := range recs {
			b.Release()
		}
		if err != nil {
			h.release()
		}
	}()
	grow := func(n int64) error {
		if err := h.res.TryGrow(n); err != nil {
			return status.Errorf(codes.ResourceExhausted, "parameters: %v", err)
		}
		s.uploadBytes.Add(n)
		return nil
	}
	var batches int64
	for rdr.Next() {
		b := rdr.RecordBatch()
		n := recordBytes(b)
		if err := grow(n); err != nil {
			return nil, nil, err
		}
		batches += n
		if err := array.ValidateRecordFull(b); err != nil {
			return nil, nil, status.Errorf(codes.InvalidArgument, "parameters: %v", err)
		}
		b.Retain()
		recs = append(recs, b)
	}
	if err := rdr.Err(); err != nil {
		return nil, nil, status.Errorf(codes.InvalidArgument, "parameters: %v", err)
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
	if err := grow(paramBytes(vals)); err != nil {
		return nil, nil, err
	}
	s.uploadBytes.Add(-batches)
	h.res.Shrink(batches)
	return vals, h, nil
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
